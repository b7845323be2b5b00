//! Integration tests of sh-pairs through the built binary.
