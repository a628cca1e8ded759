//! The serving-at-load set (issue 40): its measured rows ([`rows`]).

pub mod rows;
