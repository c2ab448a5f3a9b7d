# A UTF-8 byte-order mark, CRLF line ends, lower-case keywords, blank lines,
# an unknown header line and labels not in numeric order.
@problemname Odd
@problemDescription something newer readers add
@TIMESTAMPS FALSE

@univariate true
@classlabel true 10 2 -1
@data

1.5,2.5,3.5:10
 # a comment inside the data
-1,-2:-1
4 , 5 , 6 , 7:2
