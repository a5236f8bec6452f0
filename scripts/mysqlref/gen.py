"""Writes a regression file whose expected values are a MySQL-family
server's answers.

    scripts/mysqlref/server.sh /tmp/mysqlref/sock
    python3 scripts/mysqlref/gen.py scripts/mysqlref/numbers /tmp/mysqlref/sock > tests/sql/mysql_numbers.test

A case directory holds header.txt (the file's opening comment),
setup.sql (statements separated by ";" at line ends, run on the server
and copied as "statement ok" records) and queries.q: one query a line as
LETTER|SQL (the letter is ignored: column type letters come from the
server's column types), "## text" for a comment, and "!line\\nline|T|SQL"
to put lines (a "# BUG" note and "skipif gsql") before a record. A query
the server refuses becomes a "statement error" record. An optional
tail.txt holds records written by hand, copied at the end.
"""
import subprocess,sys,re,os
case,sock=sys.argv[1:3]
setup,qf,hdr=(os.path.join(case,f) for f in ('setup.sql','queries.q','header.txt'))
M=['mariadb','--no-defaults','-S',sock,'-uroot']
# sql_mode.txt in a case directory replaces the session's sql_mode, as
# TIME_ROUND_FRACTIONAL makes MariaDB round fractional seconds like MySQL 8.
if os.path.exists(os.path.join(case,'sql_mode.txt')):
    M.append('--init-command=SET SESSION sql_mode=\'%s\'' % open(os.path.join(case,'sql_mode.txt')).read().strip())
subprocess.run(M+['-e','DROP DATABASE IF EXISTS gen; CREATE DATABASE gen'],check=True)
subprocess.run(M+['gen'],stdin=open(setup),check=True)
out=[open(hdr).read().rstrip('\n'),'']
for st in open(setup).read().split(';\n'):
    st=st.strip().rstrip(';')
    if st: out+=['statement ok',st,'']
letters={'LONGLONG':'I','LONG':'I','TINY':'I','SHORT':'I','INT24':'I','NEWDECIMAL':'R','DECIMAL':'R','DOUBLE':'R','FLOAT':'R'}
for line in open(qf):
    line=line.rstrip('\n')
    if not line: continue
    if line.startswith('##'):
        out.append('#'+line[2:]); continue
    pre=[]
    if line.startswith('!'):
        # a comment line for gsql-specific directives: !directive|query
        d,line=line[1:].split('|',1); pre=d.split('\\n')
    kind,q=line.split('|',1)
    r=subprocess.run(M+['gen','-N','-e',q],capture_output=True,text=True)
    if r.returncode!=0:
        err=r.stderr.strip().split(': ',1)[-1]
        out+=pre+['# server: '+err,'statement error',q,'']
        continue
    if not re.match(r'\s*(SELECT|WITH|\()', q, re.I):
        out+=pre+['statement ok',q,'']
        continue
    ti=subprocess.run(M+['gen','-t','--column-type-info','-e',q],capture_output=True,text=True)
    types=re.findall(r'^Type:\s+(\S+)',ti.stdout,re.M)
    rows=[l for l in r.stdout.split('\n') if l]
    t=''.join(letters.get(x,'T') for x in types)
    sort=' rowsort' if 'ORDER BY' not in q.upper() and len(rows)>1 else ''
    out+=pre+['query '+t+sort,q,'----']+[r_.replace('\t','\t') for r_ in rows]+['']
# tail.txt: records written by hand (MySQL 8's answers where the server
# differs), copied after the generated ones.
tail=os.path.join(case,'tail.txt')
if os.path.exists(tail): out+=[open(tail).read().rstrip('\n')]
print('\n'.join(out))
