//! Integration tests of sh-compute through the built binary.
