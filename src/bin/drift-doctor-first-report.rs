//! Prints the page's first report: the worker's answer for the default
//! example, encoded as the worker sends it (see `web::first_report`).
//! scripts/build-web.sh writes it into `dist/index.html`, so that a first
//! visit shows the example analysed before the worker has loaded.
//!
//! With `rule-texts`, prints instead the script holding the rules' docs and
//! examples, which the page's build ships beside the worker for its Rules
//! tab (see `web::engine::rule_texts_script`).

fn main() {
    if std::env::args().nth(1).as_deref() == Some("rule-texts") {
        print!("{}", drift_doctor::web::engine::rule_texts_script());
        return;
    }
    match drift_doctor::web::first_report::build() {
        Ok(text) => println!("{text}"),
        Err(why) => {
            eprintln!("drift-doctor-first-report: {why}");
            std::process::exit(1);
        }
    }
}
