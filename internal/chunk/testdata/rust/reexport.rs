//! Types and traits for extracting data from requests.
use http::header::{self, HeaderMap};
use crate::body::Bytes;

pub mod path;
pub mod rejection;

pub use axum_core::extract::{
    DefaultBodyLimit, FromRef, FromRequest, FromRequestParts, Request,
};

pub use self::{path::Path, rejection::Rejection};

pub(crate) fn has_content_type(headers: &HeaderMap, expected: &str) -> bool {
    headers.get(header::CONTENT_TYPE).map_or(false, |v| v == expected)
}
