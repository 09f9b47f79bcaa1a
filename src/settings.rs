//! Reading the user's Argo CD settings: an Application, the argocd-cm
//! ConfigMap, or a fragment of either as drift-doctor's fixes print them (an
//! Application `spec:`, an argocd-cm `data:`, a bare `ignoreDifferences:`
//! list), in one or more YAML or JSON documents.
//!
//! Nothing is ignored in silence: a document that holds no settings, a rule
//! that is not a mapping, an embedded YAML text that does not parse, a jq
//! expression that jaq cannot compile or that drift-doctor will not run are
//! errors naming the document, line and column, and why.

#![warn(missing_docs)]

use crate::compare::{CompareOptions, IgnoreStatus};
use crate::ignore::jq::{self, Refusal};
use crate::ignore::IgnoreRule;
use crate::input::{parse_values, InputError, Side};
use crate::sorting::CollectByInsertion;
use crate::text::type_name;
use serde_json::{Map, Value};
use std::time::Duration;

/// The deepest nesting of flow collections (`[`, `{`) a settings text may
/// have: the limit the manifests' reader applies to every document.
pub const MAX_SETTINGS_NESTING: usize = 128;

const COMPARE_OPTIONS: &str = "resource.compareoptions";
const JQ_TIMEOUT: &str = "ignore.normalizer.jq.timeout";
const TRACKING_METHOD: &str = "application.resourceTrackingMethod";
const EXCLUSIONS: &str = "resource.exclusions";
const INCLUSIONS: &str = "resource.inclusions";
const CUSTOMIZATIONS: &str = "resource.customizations";
const IGNORE_PREFIX: &str = "resource.customizations.ignoreDifferences.";

/// Read every ignore rule from pasted Application and/or argocd-cm YAML
/// (or fragments of them), as [`apply_user_settings`] reads them.
pub fn parse_rules(text: &str) -> Result<Vec<IgnoreRule>, InputError> {
    let mut compare = CompareOptions::default();
    apply_user_settings(text, &mut compare)?;
    Ok(compare.ignore_rules)
}

/// Apply a user's pasted Argo CD settings: Application and/or argocd-cm
/// ConfigMap YAML (multi-document), or the fragments drift-doctor's fixes
/// print. Their ignoreDifferences rules are appended to
/// `compare.ignore_rules`, sharing `compare.jq`; an argocd-cm's
/// `resource.compareoptions` sets `ignoreResourceStatusField` (read as Argo
/// CD reads it: absent means the release's default, `all` since 3.0 and
/// `crd` before, see [`IgnoreStatus::from_setting`]) and
/// turns `ignoreAggregatedRoles` on when it is true;
/// `ignore.normalizer.jq.timeout` sets each jq expression's time budget;
/// `application.resourceTrackingMethod` says whether Argo CD writes its
/// tracking annotation, its instance label or both.
/// `ignoreDifferencesOnResourceUpdates` only throttles refreshes in Argo CD,
/// so it changes nothing here. Blank text applies nothing; on error nothing
/// is applied. Errors name the document, line and column in `text`.
pub fn apply_user_settings(text: &str, compare: &mut CompareOptions) -> Result<(), InputError> {
    apply_settings(text, compare, false).map(|_| ())
}

/// [`apply_user_settings`], except that a jq expression that does not
/// compile is left out of its rule and returned, located, rather than
/// refusing the whole text.
pub fn apply_user_settings_keeping_bad_jq(
    text: &str,
    compare: &mut CompareOptions,
) -> Result<Vec<InputError>, InputError> {
    apply_settings(text, compare, true)
}

fn apply_settings(
    text: &str,
    compare: &mut CompareOptions,
    keep_bad_jq: bool,
) -> Result<Vec<InputError>, InputError> {
    let blank = text.lines().all(|l| {
        let t = l.trim();
        t.is_empty() || t.starts_with('#') || t == "---" || t == "..."
    });
    if blank {
        return Ok(Vec::new());
    }
    check_nesting(text)?;
    let docs = parse_values(text, Side::Git).map_err(|mut e| {
        e.message = format!("Argo CD settings: {}", e.message);
        e
    })?;
    let mut reader = Reader {
        lines: text.split('\n').map(|l| l.trim_end_matches('\r')).collect(),
        jq: compare.jq.clone(),
        rules: Vec::new(),
        status: None,
        default_status: crate::compare::IgnoreStatus::default_for(compare.release),
        aggregated: false,
        timeout: None,
        tracking: None,
        exclusions: None,
        inclusions: None,
        refused_jq: std::cell::RefCell::new(keep_bad_jq.then(Vec::new)),
    };
    for (value, document, line) in &docs {
        reader.document(
            value,
            Place {
                document: *document,
                line: *line,
            },
        )?;
    }
    compare.ignore_rules.extend(reader.rules);
    if let Some(s) = reader.status {
        compare.ignore_resource_status_field = s;
    }
    if reader.aggregated {
        compare.ignore_aggregated_roles = true;
    }
    if let Some(t) = reader.timeout {
        compare.jq.set_timeout(t);
    }
    if let Some(m) = reader.tracking {
        compare.tracking_method = Some(m);
    }
    if reader.exclusions.is_some() || reader.inclusions.is_some() {
        compare.resource_filter = Some(crate::compare::ResourceFilter {
            exclusions: reader.exclusions.unwrap_or_default(),
            inclusions: reader.inclusions.unwrap_or_default(),
        });
    }
    Ok(reader.refused_jq.into_inner().unwrap_or_default())
}

/// Refuse flow collections nested deeper than [`MAX_SETTINGS_NESTING`]
/// before the YAML parser sees them (its time grows with the square of the
/// depth). Quoted text and comments are skipped; the scan is a line-by-line
/// approximation that can only over-count inside block scalars, whose jq
/// expressions are far shallower.
fn check_nesting(text: &str) -> Result<(), InputError> {
    let mut depth = 0usize;
    for (i, line) in text.split('\n').enumerate() {
        let mut quote: Option<char> = None;
        let mut previous = ' ';
        for (column, c) in line.chars().enumerate() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') if previous.is_whitespace() => break,
                (None, '[' | '{') => {
                    depth += 1;
                    if depth > MAX_SETTINGS_NESTING {
                        return Err(InputError {
                            side: Side::Git,
                            document: 0,
                            line: i + 1,
                            column: column + 1,
                            message: format!("Argo CD settings: the text nests deeper than {MAX_SETTINGS_NESTING} levels, the limit drift-doctor reads"),
                        });
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
            previous = c;
        }
    }
    Ok(())
}

/// Where a document starts.
#[derive(Clone, Copy)]
struct Place {
    document: usize,
    line: usize,
}

struct Reader<'t> {
    lines: Vec<&'t str>,
    jq: jq::JqRuntime,
    rules: Vec<IgnoreRule>,
    status: Option<IgnoreStatus>,
    /// `ignoreResourceStatusField` when `resource.compareoptions` leaves it
    /// out: the default of the Argo CD release imitated.
    default_status: IgnoreStatus,
    aggregated: bool,
    timeout: Option<Duration>,
    tracking: Option<crate::compare::TrackingMethod>,
    /// `resource.exclusions` and `resource.inclusions`, when the pasted
    /// `argocd-cm` holds either (else the stock file's apply).
    exclusions: Option<Vec<crate::compare::FilteredResource>>,
    inclusions: Option<Vec<crate::compare::FilteredResource>>,
    /// When set, a jq expression that does not compile is kept here and
    /// left out of its rule instead of refusing the settings (`check`
    /// reports each one as a finding).
    refused_jq: std::cell::RefCell<Option<Vec<InputError>>>,
}

/// A Kubernetes object rather than a fragment.
fn is_object(map: &Map<String, Value>) -> bool {
    map.contains_key("apiVersion") || (map.contains_key("metadata") && map.contains_key("kind"))
}

/// `group_Kind` (or `Kind` for the core group, `all` for every kind).
fn split_group_kind(key: &str) -> (String, String) {
    if key == "all" {
        return ("*".into(), "*".into());
    }
    match key.rsplit_once('_') {
        Some((g, k)) => (g.to_string(), k.to_string()),
        None => (String::new(), key.to_string()),
    }
}

/// The fields of an ignoreDifferences rule (`group` and `kind` are the key
/// in argocd-cm, but Argo CD's reader accepts them there too).
const RULE_FIELDS: &[&str] = &[
    "group",
    "kind",
    "name",
    "namespace",
    "jsonPointers",
    "jqPathExpressions",
    "managedFieldsManagers",
];

/// What a settings document may hold, for messages.
const EXPECTED: &str = "an Application, the argocd-cm ConfigMap, or a fragment of either (`spec:` with `ignoreDifferences:`, `data:` with `resource.customizations.ignoreDifferences.<kind>:`, or an `ignoreDifferences:` list)";

impl<'t> Reader<'t> {
    /// Line and column (1-based) of `key:` at or after the document start.
    fn key_position(&self, from_line: usize, key: &str) -> Option<(usize, usize)> {
        self.key_line(from_line, key)
            .map(|(i, col, _)| (i + 1, col + 1))
    }

    /// The 0-based line, 0-based column and the text after the colon of the
    /// first `key:` (possibly quoted) at or after `from_line`.
    fn key_line(&self, from_line: usize, key: &str) -> Option<(usize, usize, String)> {
        (from_line.max(1) - 1..self.lines.len()).find_map(|i| {
            let l = self.lines[i];
            let mut search = 0;
            while let Some(found) = l[search..].find(key) {
                let at = search + found;
                search = at + key.len();
                let before = &l[..at];
                let quoted = before.ends_with(['"', '\'']);
                let lead = before.trim_end_matches(['"', '\'']);
                if !lead
                    .trim_start_matches([' ', '-', '{', ','])
                    .trim()
                    .is_empty()
                {
                    continue;
                }
                let rest = &l[at + key.len()..];
                let rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
                if let Some(after) = rest.trim_start().strip_prefix(':') {
                    return Some((i, at - usize::from(quoted), after.trim().to_string()));
                }
            }
            None
        })
    }

    fn error(&self, place: Place, at: Option<(usize, usize)>, message: String) -> InputError {
        let (line, column) = at.unwrap_or((place.line, 1));
        InputError {
            side: Side::Git,
            document: place.document,
            line,
            column,
            message: format!("Argo CD settings: {message}"),
        }
    }

    /// An error inside the YAML text held by `key`, placed in the settings:
    /// at `inner` (line and column inside that text) when the text is a
    /// block scalar under its key, else at the key itself.
    fn embedded_error(
        &self,
        place: Place,
        key: &str,
        inner: Option<(usize, usize)>,
        message: String,
    ) -> InputError {
        let at = self.key_line(place.line, key).map(|(i, indent, after)| {
            let block = after.starts_with('|') || after.starts_with('>');
            match inner {
                Some((l, c)) if block && l > 0 => {
                    // The block's content is indented by its first non-blank line.
                    let content_indent = self.lines[i + 1..]
                        .iter()
                        .find(|x| !x.trim().is_empty())
                        .map_or(indent + 2, |x| x.len() - x.trim_start().len());
                    (i + 1 + l, c + content_indent)
                }
                _ => (i + 1, indent + 1),
            }
        });
        self.error(place, at, message)
    }

    /// Parse the YAML text a ConfigMap key holds.
    fn embedded_yaml(&self, place: Place, key: &str, text: &str) -> Result<Value, InputError> {
        if text.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_yaml::from_str::<Value>(text).map_err(|e| {
            let at = e.location().map(|l| (l.line(), l.column()));
            let message = regex_lite::Regex::new(r" at line \d+ column \d+")
                .map(|re| re.replace_all(&e.to_string(), "").into_owned())
                .unwrap_or_else(|_| e.to_string());
            self.embedded_error(
                place,
                key,
                at,
                format!("invalid YAML in `{key}`: {message}"),
            )
        })
    }

    fn document(&mut self, value: &Value, place: Place) -> Result<(), InputError> {
        match value {
            // `argocd app manifests` prints `null` for a missing object.
            Value::Null => Ok(()),
            Value::Array(items) => {
                let objects = items
                    .iter()
                    .all(|i| i.as_object().is_some_and(is_object) || i.is_null());
                if objects {
                    items.iter().try_for_each(|i| self.document(i, place))
                } else {
                    self.ignore_list(value, place, "ignoreDifferences", None)
                }
            }
            Value::Object(map) => {
                let kind = map.get("kind").and_then(Value::as_str);
                if is_object(map) {
                    let name = map
                        .get("metadata")
                        .and_then(|m| m.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    match kind {
                        Some("Application") => {
                            return match map.get("spec") {
                                Some(spec) => {
                                    self.spec(spec, place, &format!("Application {name}"))
                                }
                                None => Ok(()),
                            };
                        }
                        Some("ConfigMap") => {
                            return match map.get("data") {
                                Some(data) => self.data(data, place, &cm_label(name)),
                                None => Ok(()),
                            };
                        }
                        Some(k) if k.ends_with("List") => {
                            if let Some(Value::Array(items)) = map.get("items") {
                                return items.iter().try_for_each(|i| self.document(i, place));
                            }
                        }
                        Some(k) => {
                            // Often pasted along (argocd-secret, argocd-rbac-cm):
                            // said, not refused.
                            let named = if name.is_empty() {
                                String::new()
                            } else {
                                format!(" {name}")
                            };
                            self.jq.note(format!(
                                "Argo CD settings, document {}: a {k}{named} holds no settings drift-doctor reads; ignored (give {EXPECTED})",
                                place.document
                            ));
                            return Ok(());
                        }
                        None => {}
                    }
                }
                self.fragment(map, place)
            }
            other => Err(self.error(
                place,
                None,
                format!(
                    "document {} is a {}, not Argo CD settings: give {EXPECTED}",
                    place.document,
                    type_name(other)
                ),
            )),
        }
    }

    /// A mapping without `kind`: the fragments drift-doctor's fixes print.
    fn fragment(&mut self, map: &Map<String, Value>, place: Place) -> Result<(), InputError> {
        let mut read = false;
        if let Some(spec) = map.get("spec") {
            self.spec(spec, place, "Application")?;
            read = true;
        }
        if let Some(data) = map.get("data") {
            self.data(data, place, "argocd-cm")?;
            read = true;
        }
        if let Some(list) = map.get("ignoreDifferences") {
            self.ignore_list(list, place, "ignoreDifferences", Some("ignoreDifferences"))?;
            read = true;
        }
        // The keys of an argocd-cm `data:` without the `data:` line.
        let data_keys: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| {
                k.starts_with("resource.")
                    || k.as_str() == JQ_TIMEOUT
                    || k.as_str() == TRACKING_METHOD
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect_by_insertion();
        if !data_keys.is_empty() {
            self.data(&Value::Object(data_keys), place, "argocd-cm")?;
            read = true;
        }
        if read {
            return Ok(());
        }
        // The annotation form of an ignore fix's snippet, pasted with the
        // rest: it belongs on the object in Git, not in the settings.
        let own_annotation = map.len() == 1
            && map
                .get("metadata")
                .and_then(|m| m.get("annotations"))
                .and_then(|a| a.get(crate::ignore::RESOURCE_IGNORE_ANNOTATION))
                .is_some();
        if own_annotation {
            self.jq.note(format!(
                "Argo CD settings, document {}: the {} annotation goes on the object in Git, not in the settings; ignored here",
                place.document,
                crate::ignore::RESOURCE_IGNORE_ANNOTATION
            ));
            return Ok(());
        }
        let keys: Vec<&str> = map.keys().map(String::as_str).take(5).collect();
        let first = keys.first().and_then(|k| self.key_position(place.line, k));
        Err(self.error(
            place,
            first,
            format!(
                "document {} holds no Argo CD settings (its keys: {}): give {EXPECTED}",
                place.document,
                keys.join(", ")
            ),
        ))
    }

    /// An Application's `spec` (only `ignoreDifferences` matters here).
    fn spec(&mut self, spec: &Value, place: Place, owner: &str) -> Result<(), InputError> {
        match spec {
            Value::Null => Ok(()),
            Value::Object(m) => match m.get("ignoreDifferences") {
                Some(list) => self.ignore_list(
                    list,
                    place,
                    &format!("{owner} spec.ignoreDifferences"),
                    Some("ignoreDifferences"),
                ),
                None => Ok(()),
            },
            other => Err(self.error(
                place,
                self.key_position(place.line, "spec"),
                format!(
                    "`spec` of the {owner} is a {}, not a mapping",
                    type_name(other)
                ),
            )),
        }
    }

    /// A list of Application-style rules, each naming its group and kind.
    fn ignore_list(
        &mut self,
        list: &Value,
        place: Place,
        owner: &str,
        key: Option<&str>,
    ) -> Result<(), InputError> {
        let items = match list {
            Value::Null => return Ok(()),
            Value::Array(items) => items,
            other => {
                return Err(self.error(
                    place,
                    key.and_then(|k| self.key_position(place.line, k)),
                    format!(
                        "`ignoreDifferences` is a {}, not a list of rules",
                        type_name(other)
                    ),
                ))
            }
        };
        for (i, item) in items.iter().enumerate() {
            let source = format!("{owner}[{i}]");
            let Value::Object(m) = item else {
                return Err(self.error(
                    place,
                    key.and_then(|k| self.key_position(place.line, k)),
                    format!(
                        "rule {source} is a {}, not a mapping (group, kind, name, namespace, jsonPointers, jqPathExpressions, managedFieldsManagers)",
                        type_name(item)
                    ),
                ));
            };
            let text = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            let rule = self.rule(source, &text("group"), &text("kind"), m, place)?;
            self.rules.push(rule);
        }
        Ok(())
    }

    /// One rule's body: its name/namespace filter and what it ignores.
    fn rule(
        &self,
        source: String,
        group: &str,
        kind: &str,
        body: &Map<String, Value>,
        place: Place,
    ) -> Result<IgnoreRule, InputError> {
        let optional_text = |k: &str| -> Result<Option<String>, InputError> {
            match body.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(self.error(
                    place,
                    self.key_position(place.line, k),
                    format!(
                        "rule {source}: `{k}` is a {}, not a string",
                        type_name(other)
                    ),
                )),
            }
        };
        let texts = |k: &str| -> Result<Vec<String>, InputError> {
            match body.get(k) {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|i| match i {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(self.error(
                            place,
                            self.key_position(place.line, k),
                            format!(
                                "rule {source}: an item of `{k}` is a {}, not a string",
                                type_name(other)
                            ),
                        )),
                    })
                    .collect(),
                Some(other) => Err(self.error(
                    place,
                    self.key_position(place.line, k),
                    format!(
                        "rule {source}: `{k}` is a {}, not a list of strings",
                        type_name(other)
                    ),
                )),
            }
        };
        let unknown: Vec<&str> = body
            .keys()
            .map(String::as_str)
            .filter(|k| !RULE_FIELDS.contains(k))
            .collect();
        if !unknown.is_empty() {
            self.jq.note(format!(
                "rule {source}: {} not a field Argo CD reads in a rule ({}); ignored",
                unknown
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if unknown.len() == 1 { " is" } else { " are" },
                RULE_FIELDS.join(", ")
            ));
        }
        let mut jq_path_expressions = texts("jqPathExpressions")?;
        let mut refused = Vec::new();
        for (i, expr) in jq_path_expressions.iter().enumerate() {
            if let Err(refusal) = &self.jq.compile(expr).program {
                let error = self.jq_error(place, &source, i, expr, refusal);
                match self.refused_jq.borrow_mut().as_mut() {
                    Some(kept) => {
                        kept.push(error);
                        refused.push(i);
                    }
                    None => return Err(error),
                }
            }
        }
        for i in refused.into_iter().rev() {
            jq_path_expressions.remove(i);
        }
        Ok(IgnoreRule {
            source: source.clone(),
            group: group.to_string(),
            kind: kind.to_string(),
            name: optional_text("name")?,
            namespace: optional_text("namespace")?,
            json_pointers: texts("jsonPointers")?,
            jq_path_expressions,
            managed_fields_managers: texts("managedFieldsManagers")?,
            jq: self.jq.clone(),
        })
    }

    /// A jq expression drift-doctor will not run, placed where the
    /// expression's text is (when it is written on one line as it reads),
    /// else at its `jqPathExpressions` key.
    fn jq_error(
        &self,
        place: Place,
        source: &str,
        index: usize,
        expr: &str,
        refusal: &Refusal,
    ) -> InputError {
        let head: String = expr.lines().next().unwrap_or("").chars().take(80).collect();
        let found = (!head.trim().is_empty())
            .then(|| {
                (place.line.max(1) - 1..self.lines.len()).find_map(|i| {
                    self.lines[i]
                        .find(head.as_str())
                        .map(|at| (i, self.lines[i][..at].chars().count()))
                })
            })
            .flatten();
        let at = match found {
            Some((i, column)) => {
                let offset = refusal
                    .offset
                    .filter(|&o| !expr.contains('\n') && o <= expr.chars().count())
                    .unwrap_or(0);
                Some((i + 1, column + offset + 1))
            }
            None => self.key_position(place.line, "jqPathExpressions"),
        };
        let shown: String = if expr.chars().count() > 60 {
            format!("{}…", expr.chars().take(60).collect::<String>())
        } else {
            expr.to_string()
        };
        self.error(
            place,
            at,
            format!(
                "rule {source}, jq expression {} `{shown}`: {}",
                index + 1,
                refusal.message
            ),
        )
    }

    /// An argocd-cm's `data`.
    fn data(&mut self, data: &Value, place: Place, cm: &str) -> Result<(), InputError> {
        let map = match data {
            Value::Null => return Ok(()),
            Value::Object(m) => m,
            other => {
                return Err(self.error(
                    place,
                    self.key_position(place.line, "data"),
                    format!("`data` of {cm} is a {}, not a mapping", type_name(other)),
                ))
            }
        };
        for (key, value) in map {
            let is_setting = key.starts_with(IGNORE_PREFIX)
                || key == CUSTOMIZATIONS
                || key == COMPARE_OPTIONS
                || key == JQ_TIMEOUT
                || key == TRACKING_METHOD
                || key == EXCLUSIONS
                || key == INCLUSIONS;
            if !is_setting {
                continue;
            }
            if key == COMPARE_OPTIONS {
                let (s, a) = self.compare_options(place, value)?;
                self.status = Some(s);
                self.aggregated |= a;
                continue;
            }
            let text = match value {
                Value::Null => continue,
                Value::String(s) => s.as_str(),
                other => {
                    return Err(self.embedded_error(
                        place,
                        key,
                        None,
                        format!("`{key}` is a {}; argocd-cm values are strings (write YAML settings as a `|` block)", type_name(other)),
                    ))
                }
            };
            if key == EXCLUSIONS || key == INCLUSIONS {
                let body = self.embedded_yaml(place, key, text)?;
                let list = match body {
                    Value::Null => Vec::new(),
                    list @ Value::Array(_) => serde_json::from_value(list).map_err(|e| {
                        self.embedded_error(
                            place,
                            key,
                            None,
                            format!("`{key}` must be a list of apiGroups, kinds and clusters (lists of strings): {e}"),
                        )
                    })?,
                    other => {
                        return Err(self.embedded_error(
                            place,
                            key,
                            None,
                            format!("`{key}` holds a {}, not a list of apiGroups, kinds and clusters", type_name(&other)),
                        ))
                    }
                };
                if key == EXCLUSIONS {
                    self.exclusions = Some(list);
                } else {
                    self.inclusions = Some(list);
                }
            } else if key == TRACKING_METHOD {
                self.tracking = Some(crate::compare::TrackingMethod::from_setting(text));
            } else if key == JQ_TIMEOUT {
                match parse_go_duration(text) {
                    Some(d) if !d.is_zero() => self.timeout = Some(d),
                    _ => {
                        return Err(self.embedded_error(
                            place,
                            key,
                            None,
                            format!("`{JQ_TIMEOUT}` is `{}`, not a positive Go duration such as 1s, 500ms or 1m30s", text.trim()),
                        ))
                    }
                }
            } else if let Some(group_kind) = key.strip_prefix(IGNORE_PREFIX) {
                let body = self.embedded_yaml(place, key, text)?;
                let (group, kind) = split_group_kind(group_kind);
                match &body {
                    Value::Null => {}
                    Value::Object(m) => {
                        let rule = self.rule(format!("{cm} {key}"), &group, &kind, m, place)?;
                        self.rules.push(rule);
                    }
                    other => {
                        return Err(self.embedded_error(
                            place,
                            key,
                            None,
                            format!("`{key}` holds a {}, not a mapping of jsonPointers, jqPathExpressions and managedFieldsManagers", type_name(other)),
                        ))
                    }
                }
            } else {
                self.legacy_customizations(place, cm, text)?;
            }
        }
        Ok(())
    }

    /// The legacy `resource.customizations` map: `group/Kind` to a mapping
    /// whose `ignoreDifferences` is YAML text.
    fn legacy_customizations(
        &mut self,
        place: Place,
        cm: &str,
        text: &str,
    ) -> Result<(), InputError> {
        let legacy = self.embedded_yaml(place, CUSTOMIZATIONS, text)?;
        let entries = match &legacy {
            Value::Null => return Ok(()),
            Value::Object(m) => m,
            other => {
                return Err(self.embedded_error(
                    place,
                    CUSTOMIZATIONS,
                    None,
                    format!(
                    "`{CUSTOMIZATIONS}` holds a {}, not a mapping of group/Kind to customizations",
                    type_name(other)
                ),
                ))
            }
        };
        for (group_kind, entry) in entries {
            let inner = match entry {
                Value::Null => continue,
                Value::Object(m) => match m.get("ignoreDifferences") {
                    None | Some(Value::Null) => continue,
                    Some(Value::String(s)) => s,
                    Some(other) => {
                        return Err(self.embedded_error(
                            place,
                            CUSTOMIZATIONS,
                            None,
                            format!("`{CUSTOMIZATIONS}` {group_kind}: `ignoreDifferences` is a {}; Argo CD reads it as YAML text (a `|` block)", type_name(other)),
                        ))
                    }
                },
                other => {
                    return Err(self.embedded_error(
                        place,
                        CUSTOMIZATIONS,
                        None,
                        format!("`{CUSTOMIZATIONS}` {group_kind} is a {}, not a mapping", type_name(other)),
                    ))
                }
            };
            let body = serde_yaml::from_str::<Value>(inner).map_err(|e| {
                self.embedded_error(
                    place,
                    CUSTOMIZATIONS,
                    None,
                    format!(
                        "`{CUSTOMIZATIONS}` {group_kind}: invalid YAML in `ignoreDifferences`: {e}"
                    ),
                )
            })?;
            let (group, kind) = match group_kind.split_once('/') {
                Some((g, k)) => (g.to_string(), k.to_string()),
                None => (String::new(), group_kind.to_string()),
            };
            match &body {
                Value::Null => {}
                Value::Object(m) => {
                    let rule = self.rule(format!("{cm} {CUSTOMIZATIONS} {group_kind}"), &group, &kind, m, place)?;
                    self.rules.push(rule);
                }
                other => {
                    return Err(self.embedded_error(
                        place,
                        CUSTOMIZATIONS,
                        None,
                        format!("`{CUSTOMIZATIONS}` {group_kind}: `ignoreDifferences` holds a {}, not a mapping", type_name(other)),
                    ))
                }
            }
        }
        Ok(())
    }

    /// One argocd-cm's `resource.compareoptions`: the status mode and whether
    /// `ignoreAggregatedRoles` is true. Argo CD starts from its defaults
    /// (`util/settings` `GetDefaultDiffOptions`: status `all` since 3.0, `crd` before; aggregated
    /// roles off) and reads the YAML over them.
    fn compare_options(
        &self,
        place: Place,
        value: &Value,
    ) -> Result<(IgnoreStatus, bool), InputError> {
        let inner = match value {
            Value::Null => return Ok((self.default_status, false)),
            Value::String(s) => s.as_str(),
            _ => {
                return Err(self.embedded_error(
                    place,
                    COMPARE_OPTIONS,
                    None,
                    "`resource.compareoptions` must be a YAML string (a `|` block) holding ignoreResourceStatusField and ignoreAggregatedRoles".into(),
                ))
            }
        };
        let parsed = self.embedded_yaml(place, COMPARE_OPTIONS, inner)?;
        let options = match &parsed {
            Value::Null => return Ok((self.default_status, false)),
            Value::Object(m) => m,
            other => {
                return Err(self.embedded_error(
                    place,
                    COMPARE_OPTIONS,
                    Some((1, 1)),
                    format!(
                        "`resource.compareoptions` must be a mapping (ignoreResourceStatusField: all|crd|none, ignoreAggregatedRoles: true|false), not {}",
                        crate::text::value_text(other)
                    ),
                ))
            }
        };
        let status = match options.get("ignoreResourceStatusField") {
            None | Some(Value::Null) => self.default_status,
            Some(Value::String(s)) => IgnoreStatus::from_setting(s),
            Some(Value::Bool(b)) => IgnoreStatus::from_setting(&b.to_string()),
            Some(Value::Number(n)) => IgnoreStatus::from_setting(&n.to_string()),
            Some(_) => {
                return Err(self.embedded_error(
                    place,
                    COMPARE_OPTIONS,
                    inner_key_position(inner, "ignoreResourceStatusField"),
                    "ignoreResourceStatusField must be all, crd or none".into(),
                ))
            }
        };
        let aggregated = match options.get("ignoreAggregatedRoles") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if yaml11_bool(s).is_some() => yaml11_bool(s) == Some(true),
            Some(_) => {
                return Err(self.embedded_error(
                    place,
                    COMPARE_OPTIONS,
                    inner_key_position(inner, "ignoreAggregatedRoles"),
                    "ignoreAggregatedRoles must be true or false (Argo CD cannot read other values either)".into(),
                ))
            }
        };
        Ok((status, aggregated))
    }
}

/// How an argocd-cm is named in rule sources.
fn cm_label(name: &str) -> String {
    if name.is_empty() || name == "argocd-cm" {
        "argocd-cm".to_string()
    } else {
        format!("ConfigMap {name}")
    }
}

/// YAML 1.1 plain scalars that Argo CD's YAML reader (sigs.k8s.io/yaml)
/// takes as booleans; serde_yaml (YAML 1.2) reads them as strings.
fn yaml11_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "true" | "True" | "TRUE" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF" | "false" | "False" | "FALSE" => {
            Some(false)
        }
        _ => None,
    }
}

/// Line and column (1-based) of `key:` inside an embedded YAML text.
fn inner_key_position(inner: &str, key: &str) -> Option<(usize, usize)> {
    inner.lines().enumerate().find_map(|(i, l)| {
        let t = l.trim_start();
        let rest = t.strip_prefix(key)?;
        rest.trim_start()
            .starts_with(':')
            .then(|| (i + 1, l.len() - t.len() + 1))
    })
}

/// A Go duration (`time.ParseDuration`): a sequence of decimal numbers, each
/// with a unit (ns, us, µs, ms, s, m, h), such as `1s`, `1.5s`, `1m30s`; `0`
/// alone is zero. Negative durations are refused: a timeout cannot be.
pub fn parse_go_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if text.starts_with('-') {
        return None;
    }
    let nanos = crate::k8s::parse_go_duration(text)?;
    u64::try_from(nanos).ok().map(Duration::from_nanos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::ResourceKey;

    #[test]
    fn reads_both_forms() {
        let text = r#"
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: shop}
spec:
  ignoreDifferences:
  - group: apps
    kind: Deployment
    name: cart
    jsonPointers: [/spec/replicas]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm}
data:
  resource.customizations.ignoreDifferences.admissionregistration.k8s.io_MutatingWebhookConfiguration: |
    jqPathExpressions:
    - '.webhooks[]?.clientConfig.caBundle'
  resource.customizations.ignoreDifferences.Service: |
    jsonPointers: [/spec/clusterIP]
  resource.customizations.ignoreDifferences.all: |
    managedFieldsManagers: [kube-controller-manager]
"#;
        let rules = parse_rules(text).unwrap();
        assert_eq!(rules.len(), 4);
        let by_kind = |k: &str| rules.iter().find(|r| r.kind == k).unwrap();
        assert_eq!(by_kind("Deployment").group, "apps");
        assert_eq!(
            by_kind("MutatingWebhookConfiguration").group,
            "admissionregistration.k8s.io"
        );
        assert_eq!(by_kind("Service").group, "");
        assert_eq!(by_kind("*").group, "*");
        let key = ResourceKey {
            group: "apps".into(),
            kind: "Deployment".into(),
            namespace: "n".into(),
            name: "cart".into(),
        };
        assert!(by_kind("Deployment").applies_to(&key));
        assert!(!by_kind("MutatingWebhookConfiguration").applies_to(&key));
        assert!(by_kind("*").applies_to(&key));
    }

    #[test]
    fn go_durations_read_as_go_reads_them() {
        let ms = |n: u64| Some(Duration::from_millis(n));
        for (text, want) in [
            ("1s", ms(1000)),
            ("500ms", ms(500)),
            ("1.5s", ms(1500)),
            ("1m30s", ms(90_000)),
            ("2h", ms(7_200_000)),
            ("0", Some(Duration::ZERO)),
            ("10", None),
            ("s", None),
            ("-1s", None),
            ("1 s", None),
            ("", None),
        ] {
            assert_eq!(parse_go_duration(text), want, "{text:?}");
        }
    }

    #[test]
    fn deep_flow_nesting_is_refused_before_parsing() {
        let text = format!("a: {}", "[".repeat(MAX_SETTINGS_NESTING + 1));
        let e = check_nesting(&text).unwrap_err();
        assert_eq!((e.line, e.column), (1, 4 + MAX_SETTINGS_NESTING));
        assert!(e.message.contains("deeper than 128 levels"), "{e}");
        // Brackets inside quotes and comments do not count.
        let quoted = format!("a: \"{}\" # {}\n", "[".repeat(200), "{".repeat(200));
        assert!(check_nesting(&quoted).is_ok());
    }
}
