//! The drift-doctor command line: a thin shell over the library.

// Parsing builds many small maps; mimalloc makes the CLI markedly faster.
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(target_arch = "wasm32")]
fn main() {}

/// The stack the CLI runs on. jaq drops and prints values recursively, and a
/// user's jq rule can build a value nested a million levels deep within its
/// time budget; 256 MiB of address space (touched only as used) holds that.
#[cfg(not(target_arch = "wasm32"))]
const STACK_BYTES: usize = 256 << 20;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let code = match std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(cli::run)
    {
        Ok(handle) => handle.join().unwrap_or(2),
        Err(_) => cli::run(),
    };
    std::process::exit(code);
}

#[cfg(not(target_arch = "wasm32"))]
mod cli {
    use clap::{Args, Parser, Subcommand, ValueEnum};
    use drift_doctor::application::Application;
    use drift_doctor::input::{decode_text, InputError, Side};
    use drift_doctor::render::terminal_inert;
    use drift_doctor::{render, rules, Options, Report, Status, Strategy};
    use std::io::{IsTerminal, Read, Write};

    const EXAMPLES: &str = "\
Examples:
  # Git as rendered by Argo CD, live as the cluster has it
  argocd app manifests my-app --source git  > git.yaml
  argocd app manifests my-app --source live > live.yaml
  drift-doctor analyze --git git.yaml --live live.yaml

  # Straight from helm and kubectl, as JSON for a script
  helm template shop ./chart | drift-doctor analyze --git - --live live.yaml --namespace shop --format json

  # A ticket-ready summary
  drift-doctor analyze --git git.yaml --live live.yaml --format markdown > report.md

Exit status: 0 every resource Synced, 1 at least one OutOfSync, 2 the input could not be used.";

    #[derive(Parser)]
    #[command(
        name = "drift-doctor",
        version,
        about = "Explains why an Argo CD Application stays OutOfSync: which field differs, who keeps changing it, and the narrowest safe fix.",
        after_help = EXAMPLES
    )]
    struct Cli {
        #[command(subcommand)]
        command: Command,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum Format {
        Text,
        Json,
        Markdown,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum PlanFormat {
        Text,
        Json,
        Markdown,
        Yaml,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum CheckFormat {
        Text,
        Json,
        /// SARIF 2.1.0, for GitHub and GitLab code scanning
        Sarif,
        /// GitHub workflow annotations (`::warning file=…,line=…::…`)
        Github,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum LevelArg {
        Note,
        Warning,
        Error,
        /// Never fail on findings (exit 0 unless the input is unusable)
        Never,
    }

    const CHECK_EXAMPLES: &str = "\
Examples:
  # In CI: render twice, check both, fail on warnings
  helm template shop ./chart > render.yaml
  helm template shop ./chart > render-again.yaml
  drift-doctor check --git render.yaml --git-again render-again.yaml --app app.yaml

  # For GitHub or GitLab code scanning
  drift-doctor check --git render.yaml --format sarif > drift-doctor.sarif

Exit status: 0 no finding at or above --fail-on, 1 findings at or above it, 2 the input could not be used.";

    #[derive(Clone, Copy, ValueEnum)]
    enum Color {
        Auto,
        Always,
        Never,
    }

    #[derive(Clone, Copy, ValueEnum)]
    enum StrategyArg {
        /// Argo CD's default client-side three-way diff
        Legacy,
        /// Structured-merge diff (apps syncing with ServerSideApply=true)
        ServerSideApply,
        /// Server-side diff (dry-run apply; simulated offline)
        ServerSideDiff,
    }

    impl StrategyArg {
        fn strategy(self) -> Strategy {
            match self {
                StrategyArg::Legacy => Strategy::Legacy,
                StrategyArg::ServerSideApply => Strategy::ServerSideApply,
                StrategyArg::ServerSideDiff => Strategy::ServerSideDiff,
            }
        }
    }

    /// What to compare: both sides, or pasted diff output.
    #[derive(Args)]
    struct InputArgs {
        /// Desired manifests (multi-document YAML, JSON, List, `argocd app manifests`), or - for stdin
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "diff",
            requires = "live"
        )]
        git: Option<String>,
        /// Live objects (`kubectl get -o yaml|json`, `argocd app manifests --source live`), or - for stdin
        #[arg(
            long,
            value_name = "FILE",
            required_unless_present = "diff",
            requires = "git"
        )]
        live: Option<String>,
        /// A second render of the same commit (`argocd app manifests APP --source git` or `helm template` run again): fields the two renders disagree on are a non-deterministic render
        #[arg(long, value_name = "FILE", requires = "git")]
        git_again: Option<String>,
        /// Instead of the two sides: what `argocd app diff` or `kubectl diff` printed, or - for stdin
        #[arg(long, value_name = "FILE", conflicts_with_all = ["git", "live"])]
        diff: Option<String>,
        /// The Application's destination namespace, for Git objects without one
        #[arg(long, value_name = "NS")]
        namespace: Option<String>,
        /// `kubectl get events` output (a table, with or without `-o wide` or `-A`; `-o yaml|json`) or `kubectl describe` output with its Events; repeatable. Lines that name a differing field's object are quoted as evidence of who wrote it, and Argo CD's syncs are counted into a loop
        #[arg(long, value_name = "FILE")]
        events: Vec<String>,
        /// Logs of Argo CD's application controller or repo server (text or JSON) or of the controller that writes a field (`kubectl logs …`); repeatable. Credentials in them are masked
        #[arg(long, value_name = "FILE")]
        logs: Vec<String>,
        /// The largest input file read, in MiB (each side and settings file)
        #[arg(long, value_name = "MIB", default_value_t = drift_doctor::limits::DEFAULT_MAX_SIDE_BYTES / (1024 * 1024))]
        max_input_mib: u64,
    }

    impl InputArgs {
        fn max_bytes(&self) -> u64 {
            self.max_input_mib.saturating_mul(1024 * 1024)
        }
    }

    /// How Argo CD compares, and the user's own Argo CD settings.
    #[derive(Args)]
    struct SettingsArgs {
        /// How Argo CD compares [default: legacy, or what --application says]
        #[arg(long, value_enum)]
        strategy: Option<StrategyArg>,
        /// resource.compareoptions ignoreAggregatedRoles: true
        #[arg(long)]
        ignore_aggregated_roles: bool,
        /// The Argo CD release whose comparison to imitate, MAJOR.MINOR or MAJOR.MINOR.PATCH (default: the newest)
        #[arg(long, value_name = "X.Y[.Z]", value_parser = drift_doctor::ArgoCdRelease::parse)]
        argocd_version: Option<drift_doctor::ArgoCdRelease>,
        /// An Application whose spec.ignoreDifferences should apply (YAML; a `spec:` or `ignoreDifferences:` fragment will do)
        #[arg(long, value_name = "FILE")]
        app: Option<String>,
        /// The Application with its status (`argocd app get APP -o yaml`, `kubectl get application APP -n argocd -o yaml`): its ignoreDifferences, sync options and destination namespace apply (flags given win), and the report adds Argo CD's own verdicts, its sync errors classified and a sync loop in its history
        #[arg(long, value_name = "FILE")]
        application: Option<String>,
        /// The argocd-cm ConfigMap whose resource.customizations.ignoreDifferences.*, resource.compareoptions and ignore.normalizer.jq.timeout should apply (a `data:` fragment will do)
        #[arg(long = "argocd-cm", value_name = "FILE")]
        argocd_cm: Option<String>,
    }

    #[derive(Subcommand)]
    enum Command {
        /// Compare Git with live the way Argo CD does, and explain every difference
        #[command(after_help = EXAMPLES)]
        Analyze {
            #[command(flatten)]
            inputs: InputArgs,
            #[command(flatten)]
            settings: SettingsArgs,
            #[arg(long, value_enum, default_value = "text")]
            format: Format,
            /// Also list differences Argo CD would not count, with the reason
            #[arg(long)]
            include_hidden: bool,
            /// Colour in text output
            #[arg(long, value_enum, default_value = "auto")]
            color: Color,
        },
        /// Print one plan for the app: every recommended fix together, checked by comparing again, and an audit of your own ignore rules
        Plan {
            #[command(flatten)]
            inputs: InputArgs,
            #[command(flatten)]
            settings: SettingsArgs,
            /// `yaml` prints only the Application fragment, ready for `analyze --app`
            #[arg(long, value_enum, default_value = "text")]
            format: PlanFormat,
            /// Colour in text output
            #[arg(long, value_enum, default_value = "auto")]
            color: Color,
        },
        /// Print the link that opens this analysis in the drift-doctor page (Secret values masked)
        Link {
            #[command(flatten)]
            inputs: InputArgs,
            #[command(flatten)]
            settings: SettingsArgs,
            /// Where the page is served (the link's part before `#`)
            #[arg(long, value_name = "URL", default_value = "http://127.0.0.1:8080/")]
            base: String,
            /// Also write the state as a share file (for states too large for a link)
            #[arg(long, value_name = "FILE")]
            share_file: Option<String>,
        },
        /// Run the prevention checklist on rendered manifests before they ship (no cluster, no live side): replicas an autoscaler owns, non-deterministic renders, sync order, hooks, injected CA bundles, status, dropped empty values, and the app's own ignore rules
        #[command(after_help = CHECK_EXAMPLES)]
        Check {
            /// The render (`helm template`, `kustomize build`, `argocd app manifests --source git`), or - for stdin
            #[arg(long, value_name = "FILE")]
            git: String,
            /// A second render of the same commit: every field the two disagree on is reported
            #[arg(long, value_name = "FILE")]
            git_again: Option<String>,
            /// The Application (its ignoreDifferences and syncOptions are checked and used)
            #[arg(long, value_name = "FILE")]
            app: Option<String>,
            /// The argocd-cm ConfigMap (its ignoreDifferences and resource.compareoptions)
            #[arg(long = "argocd-cm", value_name = "FILE")]
            argocd_cm: Option<String>,
            /// The Argo CD release whose comparison to imitate, MAJOR.MINOR or MAJOR.MINOR.PATCH (default: the newest)
            #[arg(long, value_name = "X.Y[.Z]", value_parser = drift_doctor::ArgoCdRelease::parse)]
            argocd_version: Option<drift_doctor::ArgoCdRelease>,
            /// The Application's destination namespace, for objects without one
            #[arg(long, value_name = "NS")]
            namespace: Option<String>,
            #[arg(long, value_enum, default_value = "text")]
            format: CheckFormat,
            /// The lowest level of finding that makes the exit status 1
            #[arg(long, value_enum, default_value = "warning")]
            fail_on: LevelArg,
            /// Where docs/rules.md is served, for SARIF's helpUri (each rule's anchor is added)
            #[arg(long, value_name = "URL")]
            docs_url: Option<String>,
            /// The largest input file read, in MiB
            #[arg(long, value_name = "MIB", default_value_t = drift_doctor::limits::DEFAULT_MAX_SIDE_BYTES / (1024 * 1024))]
            max_input_mib: u64,
        },
        /// List the rules of the knowledge base
        Rules {
            /// Print the whole catalogue with each rule's documentation as Markdown
            #[arg(long)]
            markdown: bool,
            /// The sync errors recognised in an Application's status instead
            #[arg(long)]
            sync_errors: bool,
        },
        /// Print the documentation of one rule or sync error
        Explain {
            /// A rule code, e.g. AS001, or a sync error code, e.g. SE001
            code: String,
        },
    }

    /// Read one input's bytes, refusing it before reading it whole when it
    /// is larger than `max_bytes`; `label` names it in messages.
    fn read_bytes(
        path: &str,
        label: &str,
        stdin_used: &mut bool,
        max_bytes: u64,
    ) -> Result<Vec<u8>, String> {
        let too_large = |size: &str| {
            format!(
                "{label}: {path} is {size}, more than the {} MiB drift-doctor reads by default; \
                 give --max-input-mib to raise the limit, or split the input by resource",
                max_bytes / (1024 * 1024)
            )
        };
        let mut bytes = Vec::new();
        if path == "-" {
            if std::mem::replace(stdin_used, true) {
                return Err(format!(
                    "{label}: only one side or settings file can be read from stdin (-)"
                ));
            }
            std::io::stdin()
                .take(max_bytes.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(|e| format!("{label}: cannot read stdin: {e}"))?;
        } else {
            let file = std::fs::File::open(path)
                .map_err(|e| format!("{label}: cannot read {path}: {e}"))?;
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            if size > max_bytes {
                return Err(too_large(&format!("{} MiB", size.div_ceil(1024 * 1024))));
            }
            // A file that grows while being read stops at the limit too.
            file.take(max_bytes.saturating_add(1))
                .read_to_end(&mut bytes)
                .map_err(|e| format!("{label}: cannot read {path}: {e}"))?;
        }
        if bytes.len() as u64 > max_bytes {
            return Err(too_large("larger than that"));
        }
        Ok(bytes)
    }

    /// Read one side as text.
    fn read_input(
        path: &str,
        side: Side,
        stdin_used: &mut bool,
        max_bytes: u64,
    ) -> Result<String, String> {
        let label = format!("{} side", side.name());
        let bytes = read_bytes(path, &label, stdin_used, max_bytes)?;
        let text = decode_text(bytes, side)
            .map_err(|e: InputError| terminal_inert(&e.to_string()).into_owned())?;
        // The parser skips a terminal's prompt and log lines: say which.
        if side != Side::Diff {
            if let Some(p) = drift_doctor::input::preamble(&text) {
                eprintln!("note: {}", terminal_inert(&p.note(side)));
            }
        }
        Ok(text)
    }

    /// The texts of every `--events` and `--logs` file.
    fn read_observed_texts(
        inputs: &InputArgs,
        stdin_used: &mut bool,
    ) -> Result<(Vec<String>, Vec<String>), String> {
        let mut read = |option: &str, paths: &[String]| -> Result<Vec<String>, String> {
            paths
                .iter()
                .map(|path| {
                    let name = format!("{option} {path}");
                    let bytes = read_bytes(path, &name, stdin_used, inputs.max_bytes())?;
                    decode_text(bytes, Side::Live).map_err(|e| located(&name, e))
                })
                .collect()
        };
        Ok((
            read("--events", &inputs.events)?,
            read("--logs", &inputs.logs)?,
        ))
    }

    /// Read the `--events` and `--logs` files: None when none was given; an
    /// error names the option, the file and the line.
    fn read_observed(
        inputs: &InputArgs,
        stdin_used: &mut bool,
    ) -> Result<Option<drift_doctor::evidence::Observed>, String> {
        if inputs.events.is_empty() && inputs.logs.is_empty() {
            return Ok(None);
        }
        let (events, logs) = read_observed_texts(inputs, stdin_used)?;
        let events: Vec<&str> = events.iter().map(String::as_str).collect();
        let logs: Vec<&str> = logs.iter().map(String::as_str).collect();
        drift_doctor::evidence::read(&events, &logs)
            .map(Some)
            .map_err(|e| {
                // `events 2` is the second --events file.
                let (option, list) = if e.input.starts_with("events") {
                    ("--events", &inputs.events)
                } else {
                    ("--logs", &inputs.logs)
                };
                let n: usize = e
                    .input
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(1);
                let path = list.get(n.saturating_sub(1)).map_or("", String::as_str);
                let at = if e.line > 0 {
                    format!(", line {}", e.line)
                } else {
                    String::new()
                };
                terminal_inert(&format!("{option} {path}{at}: {}", e.message)).into_owned()
            })
    }

    /// Time since the first call: the clock of each jq expression's budget.
    fn elapsed() -> std::time::Duration {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed()
    }

    /// Runs jq evaluations on a worker thread and waits for each at most the
    /// time it is given: an expression that outlives it (one whose outputs
    /// multiply without a loop the budget sees) is left running on its
    /// thread, which the process ends with, and the next one gets a new
    /// worker.
    fn jq_executor() -> drift_doctor::ignore::jq::Executor {
        use drift_doctor::ignore::jq::{Evaluation, Job, Outcome};
        use std::sync::mpsc;
        type Work = (Job, mpsc::Sender<Outcome>);
        let spawn = || -> Option<mpsc::Sender<Work>> {
            let (jobs, inbox) = mpsc::channel::<Work>();
            std::thread::Builder::new()
                .stack_size(crate::STACK_BYTES)
                .spawn(move || {
                    for (job, reply) in inbox {
                        let _ = reply.send(job());
                    }
                })
                .ok()?;
            Some(jobs)
        };
        let worker = std::sync::Mutex::new(None::<mpsc::Sender<Work>>);
        std::sync::Arc::new(
            move |_: &Evaluation<'_>, job: Job, limit: std::time::Duration| {
                let mut worker = worker.lock().unwrap_or_else(|e| e.into_inner());
                if worker.is_none() {
                    *worker = spawn();
                }
                let Some(jobs) = worker.as_ref() else {
                    return Some(job());
                };
                let (reply, answer) = mpsc::channel();
                if let Err(mpsc::SendError((job, _))) = jobs.send((job, reply)) {
                    *worker = None;
                    return Some(job());
                }
                match answer.recv_timeout(limit) {
                    Ok(outcome) => Some(outcome),
                    Err(_) => {
                        *worker = None;
                        None
                    }
                }
            },
        )
    }

    /// What the flags ask for, as every shell says it.
    fn request(
        inputs: &InputArgs,
        settings: &SettingsArgs,
        include_hidden: bool,
    ) -> drift_doctor::Request {
        drift_doctor::Request {
            namespace: inputs.namespace.clone(),
            strategy: settings.strategy.map(StrategyArg::strategy),
            release: settings.argocd_version.unwrap_or_default(),
            ignore_aggregated_roles: settings.ignore_aggregated_roles,
            include_hidden,
        }
    }

    /// `request` resolved with the settings files and the Application, with
    /// this process's clock and jq executor; errors name the option and file.
    fn resolve(
        request: &drift_doctor::Request,
        settings: &[(String, String)],
        application: Option<&(String, Application)>,
    ) -> Result<Options, String> {
        let texts: Vec<(&str, &str)> = settings
            .iter()
            .map(|(name, text)| (name.as_str(), text.as_str()))
            .collect();
        let opts = request
            .resolve(&texts, application.map(|(name, app)| (name.as_str(), app)))
            .map_err(|e| located(e.source, e.error))?;
        opts.compare.jq.set_clock(elapsed);
        opts.compare.jq.set_executor(jq_executor());
        Ok(opts)
    }

    /// Read the inputs and settings and analyse them.
    fn run_analysis(
        inputs: &InputArgs,
        settings: &SettingsArgs,
        include_hidden: bool,
    ) -> Result<drift_doctor::Report, String> {
        let mut stdin_used = false;
        let max_bytes = inputs.max_bytes();
        let settings_texts = read_settings(settings, &mut stdin_used, max_bytes)?;
        let sides = read_sides(inputs, &mut stdin_used)?;
        let app = read_application(settings, &mut stdin_used, max_bytes)?;
        let opts = resolve(
            &request(inputs, settings, include_hidden),
            &settings_texts,
            app.as_ref(),
        )?;
        let git_again = match &inputs.git_again {
            Some(path) => Some(
                read_input(path, Side::Git, &mut stdin_used, max_bytes)
                    .map_err(|e| format!("--git-again: {e}"))?,
            ),
            None => None,
        };
        let observed = read_observed(inputs, &mut stdin_used)?;
        let evidence = drift_doctor::Evidence {
            application: app.as_ref().map(|(_, a)| a),
            git_again: git_again.as_deref(),
            observed: observed.as_ref(),
        };
        let result = match sides {
            // The texts are not needed once read: freed before the comparison.
            Sides::Pair { git, live } => drift_doctor::analyze_owned(git, live, &opts, evidence),
            Sides::Diff(diff) => drift_doctor::analyze_diff_with(&diff, &opts, evidence),
        };
        result.map_err(|e| e.to_string())
    }

    fn use_color(color: Color) -> bool {
        match color {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        }
    }

    /// The --app and --argocd-cm files, each with the name its errors
    /// carry, in the order Argo CD's settings apply.
    fn read_settings(
        settings: &SettingsArgs,
        stdin_used: &mut bool,
        max_bytes: u64,
    ) -> Result<Vec<(String, String)>, String> {
        let files = settings.app.iter().map(|p| ("--app", p));
        let files = files.chain(settings.argocd_cm.iter().map(|p| ("--argocd-cm", p)));
        let mut texts = Vec::new();
        for (option, path) in files {
            let name = format!("{option} {path}");
            let bytes = read_bytes(path, &name, stdin_used, max_bytes)?;
            let text = decode_text(bytes, Side::Git).map_err(|e| located(&name, e))?;
            texts.push((name, text));
        }
        Ok(texts)
    }

    /// An error inside a settings file, naming the option and file and, inside
    /// it, the document, line and column.
    fn located(name: &str, e: InputError) -> String {
        let mut at = String::new();
        if e.document > 0 {
            at.push_str(&format!(", document {}", e.document));
        }
        if e.line > 0 {
            at.push_str(&format!(", line {}, column {}", e.line, e.column.max(1)));
        }
        terminal_inert(&format!("{name}{at}: {}", e.message)).into_owned()
    }

    /// `--application`, read, with the name its errors carry.
    fn read_application(
        settings: &SettingsArgs,
        stdin_used: &mut bool,
        max_bytes: u64,
    ) -> Result<Option<(String, Application)>, String> {
        let Some(path) = &settings.application else {
            return Ok(None);
        };
        let name = format!("--application {path}");
        let bytes = read_bytes(path, &name, stdin_used, max_bytes)?;
        let text = decode_text(bytes, Side::Git).map_err(|e| located(&name, e))?;
        let app = Application::parse(&text).map_err(|e| located(&name, e))?;
        Ok(Some((name, app)))
    }

    /// What `--git` and `--live`, or `--diff`, hold.
    enum Sides {
        Pair { git: String, live: String },
        Diff(String),
    }

    /// Read `--diff`, or `--git` then `--live`.
    fn read_sides(inputs: &InputArgs, stdin_used: &mut bool) -> Result<Sides, String> {
        match (&inputs.diff, &inputs.git, &inputs.live) {
            (Some(d), _, _) => {
                read_input(d, Side::Diff, stdin_used, inputs.max_bytes()).map(Sides::Diff)
            }
            (None, Some(g), Some(l)) => {
                let git = read_input(g, Side::Git, stdin_used, inputs.max_bytes())?;
                let live = read_input(l, Side::Live, stdin_used, inputs.max_bytes())?;
                Ok(Sides::Pair { git, live })
            }
            _ => Err("give --git and --live, or --diff".to_string()),
        }
    }

    fn exit_code(report: &Report) -> i32 {
        if report
            .resources
            .iter()
            .any(|r| r.status == Status::OutOfSync)
        {
            1
        } else {
            0
        }
    }

    /// `text` on standard output.
    fn write_text(text: &str) -> std::io::Result<()> {
        std::io::stdout().write_all(text.as_bytes())
    }

    /// `value` as pretty JSON and a line break, on standard output, written
    /// as it is made: a large report's text is never held whole.
    fn write_json<T: serde::Serialize>(value: &T) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, value)?;
        out.write_all(b"\n")?;
        out.flush()
    }

    /// The arguments of `check`.
    struct CheckArgs {
        git: String,
        git_again: Option<String>,
        app: Option<String>,
        argocd_cm: Option<String>,
        release: drift_doctor::ArgoCdRelease,
        namespace: Option<String>,
        format: CheckFormat,
        fail_on: LevelArg,
        docs_url: Option<String>,
        max_bytes: u64,
    }

    /// `drift-doctor check`: read the inputs, run the checks, print the form asked for.
    fn run_check(a: CheckArgs) -> Result<i32, String> {
        use drift_doctor::check::{self, format, Input};
        use drift_doctor::rules::checks::Level;
        let mut stdin_used = false;
        let mut read = |path: &str, label: &str, side: Side| -> Result<String, String> {
            let bytes = read_bytes(path, label, &mut stdin_used, a.max_bytes)?;
            decode_text(bytes, side).map_err(|e| located(label, e))
        };
        let texts = (|| -> Result<_, String> {
            let git = read(&a.git, "git side", Side::Git)?;
            let again = match &a.git_again {
                Some(p) => Some(read(p, "git-again side", Side::SecondRender)?),
                None => None,
            };
            let app = match &a.app {
                Some(p) => Some(read(p, &format!("--app {p}"), Side::Git)?),
                None => None,
            };
            let cm = match &a.argocd_cm {
                Some(p) => Some(read(p, &format!("--argocd-cm {p}"), Side::Git)?),
                None => None,
            };
            Ok((git, again, app, cm))
        })();
        let (git, again, app, cm) = texts?;
        let input = check::CheckInput {
            git: &git,
            git_again: again.as_deref(),
            app: app.as_deref(),
            argocd_cm: cm.as_deref(),
            release: a.release,
            namespace: a.namespace.as_deref(),
        };
        let report = match check::check(&input) {
            Ok(r) => r,
            Err(e) => {
                let file = match e.input {
                    Input::Git => a.git.clone(),
                    Input::GitAgain => a.git_again.clone().unwrap_or_default(),
                    Input::App => a.app.clone().unwrap_or_default(),
                    Input::ArgocdCm => a.argocd_cm.clone().unwrap_or_default(),
                };
                return Err(format!("{file}: {e}"));
            }
        };
        let name = |i: Input| -> String {
            let path = match i {
                Input::Git => Some(&a.git),
                Input::GitAgain => a.git_again.as_ref(),
                Input::App => a.app.as_ref(),
                Input::ArgocdCm => a.argocd_cm.as_ref(),
            };
            match path.map(String::as_str) {
                Some("-") | None => "stdin".to_string(),
                Some(p) => p.to_string(),
            }
        };
        let _ = match a.format {
            CheckFormat::Json => write_json(&report),
            CheckFormat::Text => write_text(&terminal_inert(&format::text(&report, &name))),
            CheckFormat::Github => write_text(&terminal_inert(&format::github(&report, &name))),
            CheckFormat::Sarif => {
                let checks = rules::catalog().checks();
                write_json(&format::sarif(
                    &report,
                    checks,
                    &name,
                    a.docs_url.as_deref(),
                ))
            }
        };
        for w in &report.warnings {
            eprintln!("drift-doctor: warning: {}", terminal_inert(w));
        }
        let fail_on = match a.fail_on {
            LevelArg::Note => Some(Level::Note),
            LevelArg::Warning => Some(Level::Warning),
            LevelArg::Error => Some(Level::Error),
            LevelArg::Never => None,
        };
        Ok(match fail_on {
            Some(level) if report.fails(level) => 1,
            _ => 0,
        })
    }

    /// The command line's one exit: a command's status, or 2 with its
    /// error on standard error.
    pub fn run() -> i32 {
        match dispatch(Cli::parse()) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("drift-doctor: {}", terminal_inert(&message));
                2
            }
        }
    }

    /// Run one command: its exit status, or the error that stopped it.
    fn dispatch(cli: Cli) -> Result<i32, String> {
        match cli.command {
            Command::Check {
                git,
                git_again,
                app,
                argocd_cm,
                argocd_version,
                namespace,
                format,
                fail_on,
                docs_url,
                max_input_mib,
            } => run_check(CheckArgs {
                git,
                git_again,
                app,
                argocd_cm,
                release: argocd_version.unwrap_or_default(),
                namespace,
                format,
                fail_on,
                docs_url,
                max_bytes: max_input_mib.saturating_mul(1024 * 1024),
            }),
            Command::Analyze {
                inputs,
                settings,
                format,
                include_hidden,
                color,
            } => {
                let report = run_analysis(&inputs, &settings, include_hidden)?;
                // A closed standard output (`| head`) is not an error of ours.
                let _ = match format {
                    Format::Json => write_json(&report),
                    Format::Markdown => write_text(&render::markdown::render(&report, None)),
                    Format::Text => write_text(&render::text::render(
                        &report,
                        use_color(color),
                        include_hidden,
                    )),
                };
                if !matches!(format, Format::Json) {
                    for w in &report.warnings {
                        eprintln!("drift-doctor: warning: {w}");
                    }
                }
                Ok(exit_code(&report))
            }
            Command::Plan {
                inputs,
                settings,
                format,
                color,
            } => {
                let report = run_analysis(&inputs, &settings, false)?;
                let _ = match format {
                    PlanFormat::Json => write_json(
                        &serde_json::json!({ "plan": report.plan, "audit": report.audit }),
                    ),
                    PlanFormat::Markdown => write_text(&render::markdown::render_plan(&report)),
                    PlanFormat::Text => {
                        write_text(&render::text::render_plan(&report, use_color(color)))
                    }
                    PlanFormat::Yaml => write_text(match &report.plan {
                        Some(plan) if !plan.application.is_empty() => &plan.application,
                        _ => "# No ignore rule is needed: nothing to add to the Application.\n",
                    }),
                };
                for w in &report.warnings {
                    eprintln!("drift-doctor: warning: {w}");
                }
                Ok(exit_code(&report))
            }
            Command::Link {
                inputs,
                settings,
                base,
                share_file,
            } => {
                let mut stdin_used = false;
                let max_bytes = inputs.max_bytes();
                // Checked as `analyze` would read them, so a broken file fails here.
                let settings_texts = read_settings(&settings, &mut stdin_used, max_bytes)?;
                let app = read_application(&settings, &mut stdin_used, max_bytes)?;
                let request = request(&inputs, &settings, false);
                let opts = resolve(&request, &settings_texts, app.as_ref())?;
                // The link carries the Application's settings, and the
                // namespace and strategy it resolved to, so the page needs
                // no Application to compare the same way.
                let mut texts: Vec<String> = settings_texts.into_iter().map(|(_, t)| t).collect();
                texts.extend(app.iter().map(|(_, a)| a.settings_text()));
                let shared = drift_doctor::Request {
                    namespace: opts.namespace.clone(),
                    strategy: Some(opts.compare.strategy),
                    ..request
                };
                let mut state = drift_doctor::share::ShareState::default();
                state.set_request(&shared, &texts.join("\n---\n"), false);
                match read_sides(&inputs, &mut stdin_used)? {
                    Sides::Diff(diff) => {
                        state.mode = "diff".into();
                        state.diff = diff;
                    }
                    Sides::Pair { git, live } => {
                        state.mode = "sides".into();
                        state.git = git;
                        state.live = live;
                    }
                }
                let (events, logs) = read_observed_texts(&inputs, &mut stdin_used)?;
                state.set_observed(&events, &logs);
                if let Some(path) = &share_file {
                    let (text, _) = drift_doctor::share::encode_share_file(&state);
                    std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))?;
                }
                let (url, masked) = drift_doctor::share::share_url(&base, &state);
                if masked > 0 {
                    let values = if masked == 1 { "value" } else { "values" };
                    eprintln!(
                        "drift-doctor: {masked} Secret {values} replaced by masks in the link"
                    );
                }
                let fragment_len = url.split_once('#').map_or(0, |(_, f)| f.len());
                if fragment_len > drift_doctor::share::MAX_LINK_FRAGMENT {
                    // The page turns such a state into a share file rather
                    // than a link; a longer link would be cut by ticket
                    // systems or refused by the page.
                    let advice = match &share_file {
                        Some(path) => format!("{path} holds the share file: attach it and open it with the page's \"Open share file…\""),
                        None => "give --share-file FILE to write a share file, attach it, and open it with the page's \"Open share file…\"".to_string(),
                    };
                    return Err(format!(
                        "the link would be {fragment_len} characters, more than the {} a link may carry; {advice}",
                        drift_doctor::share::MAX_LINK_FRAGMENT
                    ));
                }
                println!("{url}");
                Ok(0)
            }
            Command::Rules {
                markdown,
                sync_errors: true,
            } => {
                use drift_doctor::application::sync_errors;
                let text = if markdown {
                    sync_errors::catalogue_markdown()
                } else {
                    match sync_errors::patterns() {
                        Ok(list) => list
                            .iter()
                            .map(|p| format!("{:<6} {:<24} {}\n", p.code, p.cause.id(), p.title))
                            .collect(),
                        Err(e) => return Err(e.to_string()),
                    }
                };
                let _ = std::io::stdout().write_all(text.as_bytes());
                Ok(0)
            }
            Command::Explain { code } if code.to_uppercase().starts_with("SE") => {
                let found = drift_doctor::application::sync_errors::patterns()
                    .ok()
                    .and_then(|list| list.iter().find(|p| p.code == code.to_uppercase()));
                match found {
                    Some(p) => {
                        let text = drift_doctor::application::sync_errors::explain(p);
                        let _ = std::io::stdout().write_all(text.as_bytes());
                        Ok(0)
                    }
                    None => Err(format!(
                        "no sync error {code}; `drift-doctor rules --sync-errors` lists them"
                    )),
                }
            }
            Command::Rules { markdown, .. } => {
                let c = rules::catalog();
                let out = if markdown {
                    rules::docs::catalogue_markdown(c)
                } else {
                    let mut out = String::new();
                    for r in c.rules.iter().filter(|r| r.retired.is_none()) {
                        out.push_str(&format!("{:<6} {:<24} {}\n", r.code, r.cause.id(), r.title));
                    }
                    // The checks of `drift-doctor check`, with their level.
                    for k in c.checks() {
                        out.push_str(&format!(
                            "{:<6} {:<24} {}\n",
                            k.code,
                            format!("check ({})", k.level.id()),
                            k.title
                        ));
                    }
                    out
                };
                let _ = std::io::stdout().write_all(out.as_bytes());
                Ok(0)
            }
            Command::Explain { code } => {
                let c = rules::catalog();
                let code = code.to_uppercase();
                let text = c
                    .get(&code)
                    .map(rules::docs::explain)
                    .or_else(|| c.check(&code).map(rules::docs::explain_check));
                match text {
                    Some(text) => {
                        let _ = std::io::stdout().write_all(text.as_bytes());
                        Ok(0)
                    }
                    None => Err(format!("no rule {code}; `drift-doctor rules` lists them")),
                }
            }
        }
    }
}
