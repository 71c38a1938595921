//! `mend eval report --html` pages as a real browser lays them out: the table's cells, each
//! chart's bars (relative to their chart), and every link resolved, read with one expression.

use std::path::{Path, PathBuf};

use crate::common::browser::{load, Loaded};

/// The chart geometry (page::bars): a share of 1 is `PLOT_HEIGHT` tall; `PLOT_WIDTH` is split
/// into one slot per k, each bar 60 % of its slot, centred.
pub const PLOT_WIDTH: f64 = 240.0;
pub const PLOT_HEIGHT: f64 = 100.0;
pub const LEFT: f64 = 30.0;
pub const TOP: f64 = 14.0;

const INSPECT: &str = r#"JSON.stringify({
  title: document.title,
  text: document.body.textContent,
  elements: [...new Set([...document.querySelectorAll('*')].map(e => e.localName))],
  attributes: [...new Set([...document.querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name)))],
  table: [...document.querySelectorAll('table.passk tr')].map(tr => [...tr.cells].map(c => c.textContent)),
  cards: [...document.querySelectorAll('.card')].map(card => {
    const chart = card.querySelector('svg').getBoundingClientRect();
    return {
      name: card.querySelector('h3').textContent,
      bars: [...card.querySelectorAll('rect.share')].map(r => {
        const box = r.getBoundingClientRect();
        return [Number(r.dataset.column), box.x - chart.x, box.width, box.height, box.bottom - chart.y];
      }),
      attempts: [...card.querySelectorAll('.attempt')].map(a => a.textContent),
    };
  }),
  links: [...document.querySelectorAll('a')].map(a => a.href),
})"#;

/// A chart: its name, and per bar (column, x, width, height, bottom) in CSS pixels.
pub type Card = (String, Vec<(u64, f64, f64, f64, f64)>);

pub struct EvalPage {
    pub loaded: Loaded,
}

impl EvalPage {
    pub fn load(page: &Path) -> EvalPage {
        EvalPage {
            loaded: load(page, INSPECT),
        }
    }

    pub fn text(&self) -> &str {
        self.loaded.inspected["text"].as_str().unwrap()
    }

    pub fn table(&self) -> Vec<Vec<String>> {
        serde_json::from_value(self.loaded.inspected["table"].clone()).unwrap()
    }

    /// Each chart's bars, rounded to 0.01 px.
    pub fn cards(&self) -> Vec<Card> {
        self.loaded.inspected["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|card| {
                let bars = card["bars"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|bar| {
                        let at = |index: usize| round(bar[index].as_f64().unwrap());
                        (bar[0].as_u64().unwrap(), at(1), at(2), at(3), at(4))
                    })
                    .collect();
                (card["name"].as_str().unwrap().to_owned(), bars)
            })
            .collect()
    }

    /// The attempts each chart lists (`#0 pass`, …).
    pub fn attempts(&self) -> Vec<Vec<String>> {
        self.loaded.inspected["cards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|card| serde_json::from_value(card["attempts"].clone()).unwrap())
            .collect()
    }

    /// Every link's target as a file path (the browser resolved them against the page).
    pub fn links(&self) -> Vec<PathBuf> {
        self.loaded.inspected["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|link| {
                let url = link.as_str().unwrap();
                let path = url
                    .strip_prefix("file://")
                    .unwrap_or_else(|| panic!("a link that is not a local file: {url}"));
                PathBuf::from(percent_decoded(path))
            })
            .collect()
    }
}

/// Where the bars of pass@1..k must be, for the values of one chart (a missing value: no bar).
pub fn expected_bars(values: &[Option<f64>]) -> Vec<(u64, f64, f64, f64, f64)> {
    let slot = PLOT_WIDTH / values.len() as f64;
    values
        .iter()
        .enumerate()
        .filter_map(|(index, value)| {
            value.map(|value| {
                (
                    index as u64,
                    round(LEFT + slot * index as f64 + slot * 0.2),
                    round(slot * 0.6),
                    round(value * PLOT_HEIGHT),
                    round(TOP + PLOT_HEIGHT),
                )
            })
        })
        .collect()
}

pub fn round(pixels: f64) -> f64 {
    (pixels * 100.0).round() / 100.0
}

fn percent_decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok());
        if let (b'%', Some(hex)) = (bytes[at], hex) {
            if let Ok(byte) = u8::from_str_radix(hex, 16) {
                out.push(byte);
                at += 3;
                continue;
            }
        }
        out.push(bytes[at]);
        at += 1;
    }
    String::from_utf8(out).unwrap()
}

/// The text report's pass@k table: its header line to the line before `cost:`, split on blanks.
pub fn text_table(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip(1)
        .take_while(|line| !line.starts_with("cost:") && !line.starts_with("why:"))
        .map(|line| line.split_whitespace().map(str::to_owned).collect())
        .collect()
}
