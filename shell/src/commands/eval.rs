//! `mend eval SUITE --out DIR`: k attempts per task of a suite, each an ordinary recorded run;
//! `mend eval report DIR...`: pass@k and the cost from their results files, as text, JSON or a
//! page. The work is `eval/`'s; this file reads the arguments and prints.

use std::time::Duration;

use camino::{Utf8Path, Utf8PathBuf};

use crate::cli::eval::{EvalArgs, EvalCommand};
use crate::error::{exit, MendError};
use crate::eval::attempt_pages::{write_attempt_pages, ATTEMPTS_FOLDER};
use crate::eval::attempts::eval;
use crate::eval::check_run::{check_suite, CheckOptions};
use crate::eval::cost::Costs;
use crate::eval::import::{import, Fallback, ImportOptions};
use crate::eval::page::{eval_page, EvalPage};
use crate::eval::prepared::EvalOptions;
use crate::eval::report::{merge_located, render, report};
use crate::eval::results::Row;
use crate::eval::shard::Shard;
use crate::eval::suite::Suite;

/// `mend eval` and its subcommands, from their parsed arguments.
pub fn command(args: EvalArgs) -> Result<u8, MendError> {
    if let Some(EvalCommand::Check {
        suite,
        python,
        place,
    }) = &args.report
    {
        crate::interrupt::install();
        return check_suite(&CheckOptions {
            suite: Suite::load(suite)?,
            python: python.clone(),
            sandbox: place.sandbox,
            image_cache: place.image_cache.clone(),
            on_host: place.on_host,
        });
    }
    if let Some(EvalCommand::Import {
        file,
        out,
        repos,
        test_command,
        test_report,
        image_template,
    }) = &args.report
    {
        crate::interrupt::install();
        return import(&ImportOptions {
            file: file.clone(),
            out: out.clone(),
            repos: repos.clone(),
            fallback: Fallback {
                command: test_command.clone(),
                report: test_report.clone(),
            },
            image_template: image_template.clone(),
        });
    }
    if let Some(EvalCommand::Export {
        dirs,
        swebench,
        attempt,
    }) = &args.report
    {
        return crate::export::swebench::export(dirs, swebench, *attempt);
    }
    if let Some(EvalCommand::Report {
        dirs,
        json,
        html,
        compare,
        atif,
    }) = &args.report
    {
        if let Some(pair) = compare {
            return compare_command(pair, *json);
        }
        let code = report_command(dirs, *json, html.as_deref())?;
        if let Some(out) = atif {
            let rows = merge_located(dirs)?;
            let (written, missing) = crate::export::eval_atif::write_trajectories(&rows, out)?;
            eprintln!("mend: wrote {written} ATIF trajectories in {out} ({missing} attempt(s) without a record)");
        }
        return Ok(code);
    }
    run_suite(args)
}

/// `mend eval SUITE --out DIR`: every task's attempts, this shard's share of them.
fn run_suite(args: EvalArgs) -> Result<u8, MendError> {
    let (Some(suite), Some(out)) = (args.suite, args.out) else {
        return Err(MendError::usage(
            "name the suite and the output folder: mend eval SUITE --out DIR",
        ));
    };
    crate::interrupt::install();
    let shard = Shard::choose(args.shard.as_deref(), args.shards, &|name| {
        std::env::var(name).ok()
    })?;
    let options = EvalOptions {
        suite: Suite::load(&suite)?,
        out,
        jobs: args.jobs as usize,
        shard,
        model: args.model,
        protocol: args.protocol,
        host: args.host,
        python: args.python,
        sandbox: args.place.sandbox,
        image_cache: args.place.image_cache,
        on_host: args.place.on_host,
        read_timeout: Duration::from_secs(args.read_timeout),
        unchecked: args.unchecked,
        otel: args.otel,
    };
    eval(&options)
}

/// `mend eval report --compare DIR_A DIR_B [--json]`: each side read as one run.
fn compare_command(pair: &[Utf8PathBuf], json: bool) -> Result<u8, MendError> {
    let [a, b] = pair else {
        return Err(MendError::usage("--compare takes two folders: DIR_A DIR_B"));
    };
    let side = |dir: &Utf8PathBuf| -> Result<Vec<Row>, MendError> {
        Ok(merge_located(std::slice::from_ref(dir))?
            .into_iter()
            .map(|(_, row)| row)
            .collect())
    };
    let comparison = crate::eval::compare::compare(&side(a)?, &side(b)?, a.as_str(), b.as_str());
    if json {
        let text = serde_json::to_string(&comparison)
            .map_err(|err| MendError::harness(format!("cannot print the comparison: {err}")))?;
        println!("{text}");
    } else {
        print!("{}", crate::eval::compare::render(&comparison));
    }
    Ok(exit::PASS)
}

/// `mend eval report DIR... [--json | --html OUT]`.
fn report_command(
    dirs: &[Utf8PathBuf],
    json: bool,
    html: Option<&Utf8Path>,
) -> Result<u8, MendError> {
    if html.is_some_and(|out| out == crate::atomic::STANDARD_OUTPUT) {
        return Err(MendError::usage(
            "--html needs a file, not `-`: the attempt pages it links are written beside it",
        ));
    }
    let located = merge_located(dirs)?;
    let rows: Vec<Row> = located.iter().map(|(_, row)| row.clone()).collect();
    let report = report(&rows);
    if let Some(out) = html {
        print!("{}", render(&report));
        let pages = write_attempt_pages(&located, out)?;
        let costs = Costs::of(&rows);
        let page = eval_page(&EvalPage {
            report: &report,
            costs: &costs,
            attempts: &pages.links,
            sources: dirs,
        });
        crate::page::write_page(out, &page)?;
        let folder = out
            .parent()
            .filter(|parent| !parent.as_str().is_empty())
            .map_or_else(
                || ATTEMPTS_FOLDER.to_owned(),
                |parent| format!("{parent}/{ATTEMPTS_FOLDER}"),
            );
        let removed = match pages.removed {
            0 => String::new(),
            removed => {
                format!(" (and removed {removed} old attempt page(s) it no longer links)")
            }
        };
        println!(
            "Wrote {out} ({} KB) and {} attempt page(s) in {folder}{removed}: open it in any browser; it loads nothing.",
            page.len().div_ceil(1024),
            pages.links.iter().filter(|attempt| attempt.href.is_ok()).count(),
        );
    } else if json {
        let text = serde_json::to_string(&report)
            .map_err(|err| MendError::harness(format!("cannot print the report: {err}")))?;
        println!("{text}");
    } else {
        print!("{}", render(&report));
    }
    Ok(exit::PASS)
}
