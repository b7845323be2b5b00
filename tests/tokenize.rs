//! Integration tests of sh-tokenize through the built binary.
