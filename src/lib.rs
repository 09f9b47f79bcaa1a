//! drift-doctor: explains why an Argo CD Application stays OutOfSync.
//!
//! The library is the pure core shared by the CLI and the web page: it reads
//! Git (desired) and live manifests as text, compares them the way Argo CD
//! does, gives every differing field one cause from a rule catalogue, and
//! proposes the narrowest safe fix. No files, no clock, no network.
//!
//! # A first analysis
//!
//! [`analyze`] takes both sides as text (YAML or JSON, one or many
//! documents, as `kubectl get -o yaml` and `helm template` print them) and
//! returns the [`Report`] of the JSON contract: per resource its status, each
//! differing field with its cause, the rule that decided it and its
//! evidence, and fixes checked by comparing again with each applied.
//!
//! ```
//! use drift_doctor::{analyze, Cause, Options, Status};
//!
//! let git = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flags, namespace: shop}\ndata: {beta: 'off'}\n";
//! let live = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: shop\n  managedFields:\n  - manager: kubectl-edit\n    operation: Update\n    fieldsType: FieldsV1\n    fieldsV1: {f:data: {f:beta: {}}}\ndata: {beta: 'on'}\n";
//! let report = analyze(git, live, &Options::default()).unwrap();
//! let flags = &report.resources[0];
//! assert_eq!(flags.status, Status::OutOfSync);
//! let beta = &flags.differences[0];
//! assert_eq!(beta.pointer, "/data/beta");
//! // `kubectl edit` wrote it: a person's change, never hidden by a fix.
//! assert_eq!(beta.cause, Cause::Drift);
//! ```
//!
//! [`analyze_diff`] reads what `argocd app diff` or `kubectl diff` printed
//! instead; [`check::check`] runs the prevention checklist on a render
//! alone. How the pipeline is built is in `docs/architecture.md`.

pub mod analyze;
pub mod application;
pub mod argocd_release;
pub mod audit;
pub mod check;
pub mod compare;
pub mod context;
pub mod diff_headers;
pub mod difftext;
pub mod evidence;
pub mod fixes;
pub mod identity;
pub mod ignore;
pub mod input;
pub mod k8s;
pub mod limits;
pub mod managed_fields;
pub mod model;
pub mod normalize;
pub mod object_options;
pub mod pairing;
pub mod parallel;
pub mod path;
pub mod plan;
pub mod render;
pub mod request;
pub mod rules;
pub mod secret_mask;
pub mod settings;
pub mod share;
pub mod sorting;
pub mod strict_value;
pub mod sync_effects;
pub mod text;
pub mod verify;
pub mod view;
/// The web page and its analysis worker, with the `web` feature. Natively
/// only the messages, the worker's engine and the page's first report are
/// built: the library has no web crates there.
#[cfg(feature = "web")]
pub mod web;

pub use analyze::{
    analyze, analyze_cached, analyze_diff, analyze_diff_with, analyze_owned, analyze_with,
    Evidence, Options, ParseCache,
};
pub use argocd_release::ArgoCdRelease;
pub use compare::{CompareOptions, Strategy};
pub use input::{InputError, Side};
pub use model::*;
pub use request::Request;
