//! A small key-value store.
use std::collections::HashMap;
use std::io::{self, Read};
use serde::{Deserialize, Serialize};
use crate::codec::Codec;

/// A store of values by key.
#[derive(Debug, Default)]
pub struct Store<V> {
    items: HashMap<String, V>,
    codec: Codec,
}

pub enum Error {
    NotFound(String),
    Io(io::Error),
}

pub trait Backend: Send + Sync {
    fn get(&self, key: &str) -> Option<Vec<u8>>;
    fn name(&self) -> &str {
        "backend"
    }
}

impl<V: Clone> Store<V> {
    /// Creates an empty store.
    pub fn new() -> Self {
        Store { items: HashMap::new(), codec: Codec::default() }
    }

    pub fn get(&self, key: &str) -> Result<V, Error> {
        self.items.get(key).cloned().ok_or_else(|| Error::NotFound(key.to_string()))
    }
}

impl<V> Backend for Store<V> {
    fn get(&self, key: &str) -> Option<Vec<u8>> {
        self.codec.encode(key)
    }
}

pub fn open(path: &str) -> io::Result<Store<String>> {
    let mut s = Store::new();
    load(&mut s, path)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let s: Store<i32> = Store::new();
        assert!(s.get("a").is_err());
    }
}
