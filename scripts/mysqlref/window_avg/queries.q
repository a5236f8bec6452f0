## Whole partitions, running (RANGE to the current row), a moving ROWS
## frame, ROWS to the partition's end, and OVER ().
T|SELECT id, AVG(i) OVER (PARTITION BY g), AVG(i) OVER (PARTITION BY g ORDER BY id), AVG(i) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), AVG(i) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), AVG(i) OVER () FROM wa ORDER BY id
## BIGINT sums past BIGINT average exactly; a small integer type
## averages the same way.
T|SELECT id, AVG(b) OVER (PARTITION BY g), AVG(b) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), AVG(t) OVER (PARTITION BY g ORDER BY id ROWS UNBOUNDED PRECEDING) FROM wa ORDER BY id
## RANGE frames over an integer key (with an offset; to the current row's
## peers) and an expression argument over a frame before the current row.
T|SELECT id, AVG(i) OVER (ORDER BY i RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING), AVG(i) OVER (PARTITION BY g ORDER BY i RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), AVG(i * 3) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM wa ORDER BY id
## Over a GROUP BY: averages of aggregates.
T|SELECT g, AVG(i), AVG(SUM(i)) OVER (), AVG(COUNT(*)) OVER (ORDER BY g ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wa GROUP BY g ORDER BY g
## Booleans and integer quotients average as integers.
T|SELECT id, AVG(i > 0) OVER (PARTITION BY g), AVG(i DIV 2) OVER (PARTITION BY g) FROM wa WHERE g = 2 ORDER BY id
## Rounding half away from zero at the fifth digit: 5/32 = 0.15625 and
## -5/32 = -0.15625, the same as GROUP BY's AVG; 5/16 = 0.3125 exactly.
T|SELECT g, AVG(x), MAX(a), MIN(a) FROM (SELECT g, x, AVG(x) OVER (PARTITION BY g) AS a FROM hh) s GROUP BY g ORDER BY g
T|SELECT id, a FROM (SELECT id, AVG(x) OVER (PARTITION BY g ORDER BY id) AS a FROM hh) s WHERE id IN (100, 115, 131, 200, 215, 231) ORDER BY id
T|SELECT id, m FROM (SELECT id, AVG(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 15 PRECEDING AND 16 FOLLOWING) AS m FROM hh) s WHERE id IN (100, 110, 115, 116, 131, 200, 215, 216) ORDER BY id
## WHERE filters the rows before the window: only they are averaged.
T|SELECT id, AVG(x) OVER (PARTITION BY g ORDER BY id) FROM hh WHERE id IN (100, 101, 103, 107, 115, 131, 200, 215, 231) ORDER BY id
