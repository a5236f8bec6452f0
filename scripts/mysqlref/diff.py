"""Records a MySQL-family server's answers to the differential test's
queries (tests/mysqldiff) as a regression file.

    go run ./tests/mysqldiff/cmd/mysqldiffgen | python3 scripts/mysqlref/diff.py SOCK > tests/mysqldiff/testdata/answers.test

(scripts/mysqlref/diff.sh does all of it.) Input lines are "S|statement"
(run, and copied as "statement ok") and "Q|columns|query", columns
listing the result columns that are date arithmetic on text. Each query becomes a
"query" record with the server's column types as type letters and its
rows, or a "statement error" record when the server refuses it. The
session reads MySQL 8's default sql_mode plus TIME_ROUND_FRACTIONAL, which
makes MariaDB round extra fractional digits as MySQL 8 does.
"""
import re, subprocess, sys

sock = sys.argv[1]
MODE = ('ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,'
        'ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,TIME_ROUND_FRACTIONAL')
M = ['mariadb', '--no-defaults', '-S', sock, '-uroot',
     "--init-command=SET SESSION sql_mode='%s', time_zone='+00:00'" % MODE]
LETTERS = {'LONGLONG': 'I', 'LONG': 'I', 'TINY': 'I', 'SHORT': 'I', 'INT24': 'I',
           'NEWDECIMAL': 'R', 'DECIMAL': 'R', 'DOUBLE': 'R', 'FLOAT': 'R'}


def run(args, sql):
    return subprocess.run(M + args + ['-e', sql], capture_output=True, text=True)


version = run(['-N'], 'SELECT VERSION()').stdout.strip()
subprocess.run(M + ['-e', 'DROP DATABASE IF EXISTS mdiff; CREATE DATABASE mdiff'], check=True)
out = ['# Recorded answers of the date, time and DECIMAL differential test',
       '# (tests/mysqldiff, issue 38): generated queries over the edge-value',
       '# table, each with the server\'s answer. Do not edit: regenerate with',
       '#     sh scripts/mysqlref/diff.sh',
       '# Server: %s, sql_mode %s' % (version, MODE),
       '# (MySQL 8\'s default plus TIME_ROUND_FRACTIONAL, which makes MariaDB',
       '# round fractional seconds as MySQL 8 does). In a SELECT an invalid',
       '# date, interval or format is NULL with a warning on the server.', '']
for line in sys.stdin:
    kind, sql = line.rstrip('\n').split('|', 1)
    textdates = []
    if kind == 'Q':
        cols, sql = sql.split('|', 1)
        textdates = [int(c) for c in cols.split(',') if c]
    if kind == 'S':
        r = run(['mdiff'], sql)
        if r.returncode != 0:
            sys.exit('setup failed: %s: %s' % (sql, r.stderr))
        out += ['statement ok', sql, '']
        continue
    r = run(['mdiff', '-N', '-B'], sql)
    if r.returncode != 0:
        err = r.stderr.strip().split(': ', 1)[-1]
        out += ['# server: ' + err.replace('\n', ' '), 'statement error', sql, '']
        continue
    ti = run(['mdiff', '-t', '--column-type-info'], sql)
    types = re.findall(r'^Type:\s+(\S+)', ti.stdout, re.M)
    letters = [LETTERS.get(t, 'T') for t in types]
    rows = []
    for l in r.stdout.split('\n')[:-1]:
        vals = l.split('\t')
        for i, v in enumerate(vals):
            if v == '':
                vals[i] = '(empty)'
            elif types[i] in ('DOUBLE', 'FLOAT') and v != 'NULL':
                vals[i] = '%.3f' % float(v)
            elif i in textdates:
                # Date arithmetic on text is text. MySQL 8 prints six
                # digits of a second when they are not all zero, none
                # otherwise (Item_temporal_hybrid_func::val_str_ascii);
                # MariaDB prints six always, or a literal's own digits.
                m = re.match(r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\.(\d{1,6})$', v)
                if m:
                    frac = m.group(2).ljust(6, '0')
                    vals[i] = m.group(1) + ('' if frac == '000000' else '.' + frac)
        rows.append('\t'.join(vals))
    out += ['query ' + ''.join(letters) + ' nosort', sql, '----'] + rows + ['']
print('\n'.join(out).rstrip('\n'))
