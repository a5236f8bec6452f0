# rename.sed: issue 35's move of the operator specifications below the
# planner. Qualified references to the moved names, in any package:
#   sed -i -E -f scripts/qualify/rename.sed FILES && scripts/qualify/fiximports.sh DIRS
s/\boperators\.(AggKind|AggCountStar|AggCount|AggSum|AggAvg|AggMin|AggMax|AggGroupConcat|AggVarPop|AggVarSamp|AggStddevPop|AggStddevSamp|AggQuantileCont|AggQuantileDisc|AggSpec|AggOrder|AggResultType|TopGroups|SortKey|NullOrder|NullsDefault|NullsFirst|NullsLast|JoinKind|InnerJoin|LeftJoin|SemiJoin|AntiJoin|CompareValues|AppendRowKey|BatchSize)\b/opspec.\1/g
s/\bwindow\.(Kind|RowNumber|Rank|DenseRank|PercentRank|CumeDist|Ntile|Lag|Lead|FirstValue|LastValue|NthValue|CountStar|Count|Sum|Avg|Min|Max|Unit|Rows|Range|BoundKind|UnboundedPreceding|Preceding|CurrentRow|Following|UnboundedFollowing|Bound|Frame|DefaultFrame|Key|Func)\b/winspec.\1/g
# Step 3 (device operators together): one name for one thing.
s/\bGPURuntime\b/DeviceRuntime/g
s/\bGPUAggregate\b/DeviceAggregate/g
s/\bGPUJoin\b/DeviceJoin/g
s/\bGPUWindow\b/DeviceWindow/g
s/\bbuildGPUAggregate\b/buildDeviceAggregate/g
s/\bbuildGPUJoin\b/buildDeviceJoin/g
