//! A small SVG bar chart of shares (values from 0 to 1), one bar per column, for any report
//! that plots a probability against a count (an eval's pass@k against k). The geometry is fixed
//! and public, so that a test can say where every bar must be.

use super::html::Html;

/// The plot area, in CSS pixels: a share of 1 is a bar `PLOT_HEIGHT` tall.
pub(crate) const PLOT_WIDTH: f64 = 240.0;
pub(crate) const PLOT_HEIGHT: f64 = 100.0;
/// Room for the share axis on the left, the value labels on top, the column labels below.
pub(crate) const LEFT: f64 = 30.0;
pub(crate) const TOP: f64 = 14.0;
const BOTTOM: f64 = 18.0;
/// Each column's bar fills this share of its slot, centred.
const BAR_SHARE: f64 = 0.6;
/// Above this many columns the labels would overlap: only the first, the last and every fifth.
const ALL_LABELS_UP_TO: usize = 12;

/// One column: its label under the axis (`1`, `2`, …), its value if there is one, and what a
/// hover or focus says about it.
pub(crate) struct Column {
    pub label: String,
    pub value: Option<f64>,
    pub title: String,
}

/// Where a column's bar goes: its left edge and width, and its height, in the chart's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Placed {
    pub x: f64,
    pub width: f64,
    pub height: f64,
}

/// The bar of column `index` of `count`, for `value` (clamped to 0..=1).
pub(crate) fn place(index: usize, count: usize, value: f64) -> Placed {
    let slot = PLOT_WIDTH / count.max(1) as f64;
    Placed {
        x: LEFT + slot * index as f64 + slot * (1.0 - BAR_SHARE) / 2.0,
        width: slot * BAR_SHARE,
        height: value.clamp(0.0, 1.0) * PLOT_HEIGHT,
    }
}

/// Draws the chart. `title` names it for assistive technology; a column without a value gets a
/// dash instead of a bar.
pub(crate) fn draw(title: &str, columns: &[Column], page: &mut Html) {
    let width = LEFT + PLOT_WIDTH + 8.0;
    let height = TOP + PLOT_HEIGHT + BOTTOM;
    let base = TOP + PLOT_HEIGHT;
    page.markup(format_args!(
        "<svg class=\"shares\" role=\"img\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    ));
    page.raw("<title>").text(title).raw("</title>");
    for share in [0.0, 0.5, 1.0] {
        let y = base - share * PLOT_HEIGHT;
        page.markup(format_args!(
            "<line class=\"grid\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><text class=\"share-label\" x=\"{:.1}\" y=\"{:.1}\">{share}</text>",
            LEFT + PLOT_WIDTH,
            LEFT - 4.0,
            y + 4.0
        ));
    }
    let count = columns.len();
    for (index, column) in columns.iter().enumerate() {
        let slot = place(index, count, 0.0);
        let centre = slot.x + slot.width / 2.0;
        if count <= ALL_LABELS_UP_TO || index == 0 || index + 1 == count || (index + 1) % 5 == 0 {
            page.markup(format_args!(
                "<text class=\"column-label\" x=\"{centre:.3}\" y=\"{:.1}\">",
                base + 13.0
            ));
            page.text(&column.label).raw("</text>");
        }
        let Some(value) = column.value else {
            page.markup(format_args!(
                "<text class=\"missing\" tabindex=\"0\" x=\"{centre:.3}\" y=\"{:.1}\">–<title>",
                base - 3.0
            ));
            page.text(&column.title).raw("</title></text>");
            continue;
        };
        let bar = place(index, count, value);
        page.markup(format_args!(
            "<rect class=\"share\" tabindex=\"0\" x=\"{:.3}\" y=\"{:.3}\" width=\"{:.3}\" height=\"{:.3}\" data-column=\"{index}\" data-value=\"{value}\"><title>",
            bar.x,
            base - bar.height,
            bar.width,
            bar.height
        ));
        page.text(&column.title).raw("</title></rect>");
        if count <= ALL_LABELS_UP_TO {
            page.markup(format_args!(
                "<text class=\"value-label\" x=\"{centre:.3}\" y=\"{:.3}\">{value:.2}</text>",
                base - bar.height - 3.0
            ));
        }
    }
    page.markup(format_args!(
        "<line class=\"axis\" x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{base:.1}\" y2=\"{base:.1}\"/></svg>",
        LEFT + PLOT_WIDTH
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_split_the_width_evenly_and_their_height_is_the_share() {
        let placed: Vec<Placed> = [(0, 0.25), (1, 1.0), (3, 0.0), (2, 1.5)]
            .iter()
            .map(|(index, value)| place(*index, 4, *value))
            .collect();
        // Four slots of 60 px, each bar 36 px wide, 12 px in from its slot's edge.
        assert_eq!(
            placed,
            [
                Placed {
                    x: 42.0,
                    width: 36.0,
                    height: 25.0
                },
                Placed {
                    x: 102.0,
                    width: 36.0,
                    height: 100.0
                },
                Placed {
                    x: 222.0,
                    width: 36.0,
                    height: 0.0
                },
                Placed {
                    x: 162.0,
                    width: 36.0,
                    height: 100.0
                },
            ]
        );
    }

    #[test]
    fn a_column_without_a_value_is_a_dash_and_every_label_is_escaped() {
        let mut page = Html::new();
        draw(
            "<t>",
            &[
                Column {
                    label: "<1>".to_owned(),
                    value: Some(0.5),
                    title: "a&b".to_owned(),
                },
                Column {
                    label: "2".to_owned(),
                    value: None,
                    title: "n < k".to_owned(),
                },
            ],
            &mut page,
        );
        let svg = page.finish();
        let rects: Vec<&str> = svg.split("<rect").skip(1).collect();
        assert_eq!(
            (
                rects.len(),
                svg.contains("<title>&lt;t&gt;</title>"),
                svg.contains(">&lt;1&gt;</text>"),
                svg.contains("<title>a&amp;b</title>"),
                svg.contains("<title>n &lt; k</title>"),
                svg.contains("<t>") || svg.contains("<1>"),
            ),
            (1, true, true, true, true, false)
        );
        // Two slots of 120 px: the bar 72 px wide from 54 px, half of the plot high.
        assert_eq!(
            rects[0].split("><title>").next(),
            Some(" class=\"share\" tabindex=\"0\" x=\"54.000\" y=\"64.000\" width=\"72.000\" height=\"50.000\" data-column=\"0\" data-value=\"0.5\"")
        );
    }
}
