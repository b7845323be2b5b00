complete -c sh-pairs -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-pairs -s o -l output -d 'Write to FILE (\'-\' is standard output); a regular file is replaced only when the command succeeds' -r -F
complete -c sh-pairs -s k -s d -l distance -d 'Report pairs whose fingerprints differ in at most K bits (in total, for wide ones). The default is chosen for the width: 6 for 64 bits (best precision and recall with 2-token shingles in our evaluation; use less for billions of documents); 20 with --word-k 8 for 128 bits and 44 with --word-k 8 and --word-bytes 6 for 256. A K given here is searched exactly unless --word-k is given too' -r
complete -c sh-pairs -l word-k -d 'Wide fingerprints: report a pair only if some 64-bit word is within this many bits too (faster, approximate; the recall is in DESCRIPTION). Default: 8 (128 and 256 bits) without -k; exact, floor(K / words), with it' -r
complete -c sh-pairs -l word-bytes -d 'Wide fingerprints: a word within --word-k bits counts only if at most T of its 8 bytes differ (within T bits it always counts); each word is then searched over its 8 bytes (B = 8) at about the cost of a search within T. Default: 6 for 256 bits without -k and --word-k; none otherwise' -r
complete -c sh-pairs -s b -l blocks -d 'Cut fingerprints into B blocks (K < B <= 64); default: the cheapest for the input size' -r
complete -c sh-pairs -s j -l threads -d 'Read, group, search and write the pairs with N threads [default: all cores]' -r
complete -c sh-pairs -l against -d 'Report only pairs of an input record with a record of FILE (a new crawl against an existing corpus), as QUERY_ID<TAB>CORPUS_ID<TAB>DISTANCE, sorted by query then corpus position. Each of the two inputs has ids, or line numbers, of its own. FILE may also be an index directory of sh-index, read whole as the records it holds (-o into that directory is refused)' -r -F
complete -c sh-pairs -l format -d 'Output format' -r -f -a "tsv\t'ID_A<TAB>ID_B<TAB>DISTANCE'
json\t'One JSON array per line: without ids `[FP_A, FP_B]`, the two fingerprints, smaller first (what seomoz\'s simhash-find-all prints; wide ones as "0x..." strings); with ids `["ID_A", "ID_B", DISTANCE]`, bytes of an id that are not UTF-8 replaced by U+FFFD (so ids that differ only there print alike; the TSV output keeps them as they came)'"
complete -c sh-pairs -l sparse -d 'For clustering at scale: write only enough pairs to connect the same clusters. Records sharing a fingerprint give a chain (r1-r2, r2-r3, ...), and two near fingerprints give one pair, their first records. sh-cluster finds the same clusters as from all pairs, and the output grows linearly with the number of duplicates'
complete -c sh-pairs -l stats -d 'Print records, tables, candidates compared, pairs and time to stderr'
complete -c sh-pairs -s q -l quiet -d 'No progress on stderr'
complete -c sh-pairs -l map -d 'Map step: for each record and table (of each word, for wide fingerprints), print KEY<TAB>FINGERPRINT<TAB>LINE[<TAB>ID] (see Map/reduce above). Needs --blocks'
complete -c sh-pairs -l reduce -d 'Reduce step: read map lines sorted by KEY, print the pairs each group\'s table reports. Needs the --blocks, --distance and --word-k of the map'
complete -c sh-pairs -l numbered -d 'With --map: input lines are LINE<TAB>[ID<TAB>]FINGERPRINT, LINE the line number in the whole input. With --reduce: print LINE_A<TAB>LINE_B<TAB> before each pair'
complete -c sh-pairs -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-pairs -s V -l version -d 'Print version'
