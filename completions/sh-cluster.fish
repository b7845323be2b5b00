complete -c sh-cluster -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-cluster -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-cluster -s f -l format -d 'How to print the clusters' -r -f -a "tsv\t'One cluster per line, ids separated by TABs'
json\t'One JSON array per cluster; numeric ids as numbers, others as strings (non-UTF-8 bytes become U+FFFD)'
labels\t'ID<TAB>N for every member, N the cluster\'s number from 1'"
complete -c sh-cluster -s m -l min-size -d 'Leave out clusters with fewer than N members' -r
complete -c sh-cluster -l duplicates -d 'Print every member but each cluster\'s first, one id per line: the documents to drop. (No short flag: -d is --distance in sh-pairs.)'
complete -c sh-cluster -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-cluster -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-cluster -s V -l version -d 'Print version'
