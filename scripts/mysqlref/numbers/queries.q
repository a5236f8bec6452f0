## Literals with a decimal point are exact DECIMALs.
T|SELECT 0.1 + 0.2 = 0.3, 0.1 + 0.2, 1.5 * 2, 0.1 * 3, 1.10 + 2.205
T|SELECT 99999999999999999999, 99999999999999999999 + 1, -9223372036854775809
## DIV of exact values is exact, near the BIGINT limit too.
T|SELECT 18446744073709551615 DIV 2, 7.5 DIV 2, 5 DIV 2.0, -7.5 DIV 2, x DIV 0.3 FROM dn WHERE id = 1
T|SELECT 00.50, .5, -0.5, 1.
## x * 1.1 on DECIMAL(12,2): DECIMAL(15,3).
T|SELECT x * 1.1, x + 0.001, x - 1.5, x * 1.1 * 1.1 FROM dn ORDER BY id
## Integer division and AVG of integers: DECIMAL, scale + 4.
T|SELECT 1/3, 7/2, -7/2, 3/5, 0/5, 1/0, 10/4
T|SELECT i/3, i/7, i/i, x/i, x/3 FROM dn ORDER BY id
T|SELECT AVG(i), SUM(i)/COUNT(i), AVG(x), AVG(i * 1.5) FROM dn
T|SELECT id, AVG(i) FROM dn GROUP BY id ORDER BY id
## MySQL's intermediate precision: a quotient keeps 9-digit words of fraction inside an expression.
T|SELECT 1/3*3, 2/3*3, 1/7/7, (1/3)/(1/3), 10/3*10/3, 100.00*1/7, 1/3 + 1/3 + 1/3
T|SELECT (1/3)*1000000000, 1/3*1000000, (i/3)*3 FROM dn ORDER BY id
T|SELECT SUM(i/3), AVG(i/3), SUM(x/7) FROM dn
## ROUND and TRUNCATE with D above the scale print D digits.
T|SELECT ROUND(2.5, 3), TRUNCATE(2.5, 4), ROUND(1/3, 6), TRUNCATE(2/3, 6), ROUND(1, 3), ROUND(123.456, -1), TRUNCATE(1.23456, 2)
T|SELECT ROUND(x, 4), TRUNCATE(x, 3), ROUND(x, 1), ROUND(x / 3, 8) FROM dn ORDER BY id
## The largest DECIMAL(30,10): results that fit 38 digits are no overflow.
T|SELECT y / y, y * 1.1, y / 3, 1 / y, y / y * 2 FROM dmax
## Text of exact values.
T|SELECT CAST(1/3 AS CHAR), CONCAT(7/2), CONCAT(0.1 + 0.2), CAST(x * 1.1 AS CHAR) FROM dn WHERE id = 1
## A DATE compared with a string holding a time part compares as DATETIME.
T|SELECT DATE '2024-02-29' = '2024-02-29 12:34:56', DATE '2024-02-29' = '2024-02-29', DATE '2024-02-29' = '2024-02-29 00:00:00', DATE '2024-02-29' < '2024-02-29 12:34:56', DATE '2024-02-29' >= '2024-02-29 00:00:01'
T|SELECT DATE '2024-02-29' IN ('2024-02-29 00:00:01', '2024-02-28'), DATE '2024-02-29' IN ('2024-02-29 00:00:00', '2024-02-28')
T|SELECT id FROM dd WHERE d = '2024-02-29 12:34:56' ORDER BY id
T|SELECT id FROM dd WHERE d < '2024-02-29 12:34:56' ORDER BY id
T|SELECT id FROM dd WHERE d = s ORDER BY id
## DATE_ADD on a string returns a string shaped like the input.
T|SELECT DATE_ADD('2000-02-28', INTERVAL 1 DAY), DATE_ADD('2000-02-28 10:00:00', INTERVAL 1 DAY), DATE_ADD('2000-02-28', INTERVAL 1 HOUR), DATE_SUB('2000-03-01', INTERVAL 1 DAY), ADDDATE('2000-02-28', 1)
T|SELECT CONCAT(DATE_ADD('2000-02-28', INTERVAL 1 DAY), '|'), LENGTH(DATE_ADD('2000-02-28', INTERVAL 1 DAY))
