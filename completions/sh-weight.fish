complete -c sh-weight -s i -l input -d 'Read from FILE (\'-\' is standard input)' -r -F
complete -c sh-weight -s o -l output -d 'Write to FILE (\'-\' is standard output); a file is replaced only on success, a stream, pipe or device written as the output goes' -r -F
complete -c sh-weight -l df -d 'The document-frequency table of the corpus, as sh-df writes it' -r -F
complete -c sh-weight -l max-df -d 'Leave out items found in more than this fraction of the documents (0 < F <= 1)' -r
complete -c sh-weight -l df-floor -d 'Never leave out an item found in N documents or fewer, whatever --max-df says' -r
complete -c sh-weight -l max-tf -d 'Keep at most N occurrences of an item in one document (0: every occurrence)' -r
complete -c sh-weight -l min-kept -d 'A document of which less than the fraction F of the items would be kept keeps them all (where a run left out covers over half of it: of the rest, and at most 4 kept in a row)' -r
complete -c sh-weight -l min-run -d 'Leave out a common item only where at least N common items stand in a row (1: wherever it stands)' -r
complete -c sh-weight -l capacity -d 'Hold at most N items of the table' -r
complete -c sh-weight -s j -l threads -d 'Weigh on N threads, the output in input order [default: all cores]' -r
complete -c sh-weight -l chunk-bytes -d 'Bytes of input per chunk of lines handed to a thread (for tests of the ordering)' -r
complete -c sh-weight -l idf -d 'Weigh every item kept by ln(N / df): ITEM:WEIGHT'
complete -c sh-weight -l weighted -d 'Items are ITEM:WEIGHT; ITEM is looked up and the weight kept (multiplied with --idf)'
complete -c sh-weight -s q -l quiet -d 'Show no progress and no notes on standard error (errors are always shown)'
complete -c sh-weight -s h -l help -d 'Print help (see more with \'--help\')'
complete -c sh-weight -s V -l version -d 'Print version'
