//! Prints the page's first report: the worker's answer for the default
//! example, encoded as the worker sends it (see `web::first_report`).
//! scripts/build-web.sh writes it into `dist/index.html`, so that a first
//! visit shows the example analysed before the worker has loaded.

fn main() {
    match drift_doctor::web::first_report::build() {
        Ok(text) => println!("{text}"),
        Err(why) => {
            eprintln!("drift-doctor-first-report: {why}");
            std::process::exit(1);
        }
    }
}
