//! Integration tests of sh-cluster through the built binary.
