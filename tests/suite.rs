//! The native test suite as one binary, so a small machine links it once.
//! The browser suites (`e2e`, `standalone`) are separate binaries behind the
//! `browser-tests` feature: `scripts/test.sh` builds the page and runs them.

#![cfg(not(target_arch = "wasm32"))]
// Tests ship nowhere: the standard sorts' size costs nothing here.
#![allow(clippy::disallowed_methods)]

mod common;

mod application;
mod argo_specifics;
mod audit;
mod bad_input;
mod bad_settings;
mod check;
mod cli;
mod deferred_parse;
mod difftext_fixtures;
mod difftext_malformed;
mod difftext_roundtrip;
mod difftext_writing;
mod events_logs;
mod evidence_facts;
#[cfg(feature = "web")]
mod first_report;
mod fuzz_smoke;
mod hostile_input;
mod input_order;
mod layers;
mod normalizers;
mod parity;
mod preparsed;
mod properties;
mod provenance;
mod real_reports;
mod render_snapshots;
mod rules;
mod scenarios;
mod secret_masking;
mod settings;
mod snippet_roundtrip;
mod sync_effects;
mod verify;
mod what_the_diff;
#[cfg(feature = "web")]
mod workers;
