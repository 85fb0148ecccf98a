//! Bar charts of the main metrics per policy and group, with their intervals, drawn
//! with a bundled font (DejaVu Sans, see assets/DejaVuSans-LICENSE.txt) so that no
//! system font is needed. SVG or PNG by the file's extension; the file is replaced
//! whole (`gatecrew_protocol::replace`).

use std::path::Path;

use gatecrew_protocol::replace::Replacement;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};

use crate::report::{Metric, Report};

static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw {path}: {message}")]
pub struct PlotError {
    /// The file.
    pub path: String,
    /// Why.
    pub message: String,
}

const PANELS: [Metric; 6] = [Metric::Tsr, Metric::Msg, Metric::Cs, Metric::Uer, Metric::Ecr, Metric::Rsr];
const COLOURS: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Registers the bundled font under "sans-serif" (what every chart here asks for).
/// Registering twice is harmless.
pub fn use_bundled_font() {
    let _ = register_font("sans-serif", FontStyle::Normal, FONT);
}

/// What a panel's y axis measures.
fn y_label(metric: Metric) -> &'static str {
    match metric {
        Metric::Tsr => "share of blueprint cells correct",
        Metric::Msg => "public messages per episode",
        Metric::Cs => "actions per episode",
        Metric::Uer => "share of escalations",
        Metric::Ecr => "share of windows opened",
        Metric::Rsr => "share of issues resolved",
        _ => "",
    }
}

/// The height of the legend's strip above the panels: the legend never covers a bar.
const LEGEND_HEIGHT: u32 = 40;

/// Draws six panels (TSR, Msg, CS, UER, ECR, RSR): bars per policy for each key, with
/// 95% interval whiskers, each y axis labelled; the policies' legend in a strip of its
/// own above them.
pub fn plot(report: &Report, path: &Path) -> Result<(), PlotError> {
    let err = |e: &dyn std::fmt::Display| PlotError { path: path.display().to_string(), message: e.to_string() };
    use_bundled_font();
    let size = (1500, 900);
    let ext = path.extension().and_then(|e| e.to_str());
    if !matches!(ext, Some("svg" | "png")) {
        return Err(err(&"the plot file must end in .svg or .png"));
    }
    // Drawn beside the old plot and renamed over it: a failed or killed run leaves it whole.
    let out = Replacement::begin_keeping_extension(path).map_err(|e| err(&e))?;
    let temp = out.temp().to_path_buf();
    match ext {
        Some("svg") => draw(report, SVGBackend::new(&temp, size).into_drawing_area()),
        _ => draw(report, BitMapBackend::new(&temp, size).into_drawing_area()),
    }
    .map_err(|e| err(&e))?;
    out.commit().map_err(|e| err(&e))
}

fn draw<DB: DrawingBackend>(report: &Report, root: DrawingArea<DB, plotters::coord::Shift>) -> Result<(), String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (strip, body) = root.split_vertically(LEGEND_HEIGHT);
    legend(&strip, &report.policies)?;
    let panels = body.split_evenly((2, 3));
    let keys = &report.keys;
    let np = report.policies.len().max(1);
    for (area, metric) in panels.iter().zip(PANELS) {
        let values: Vec<f64> = report
            .groups
            .iter()
            .flat_map(|g| g.cells.iter().filter(|c| c.metric == metric).filter_map(|c| c.interval.map(|i| i.hi)))
            .collect();
        let top =
            values.iter().copied().fold(0.0f64, f64::max).max(if metric == Metric::Tsr { 1.0 } else { 1e-9 }) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(metric.label(), ("sans-serif", 22))
            .margin(8)
            .x_label_area_size(28)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.5..keys.len() as f64 - 0.5, 0.0..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(keys.len() + 1)
            .x_label_formatter(&|x| {
                let k = x.round();
                if (x - k).abs() < 1e-6 && k >= 0.0 {
                    keys.get(k as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .label_style(("sans-serif", 13))
            .y_desc(y_label(metric))
            .axis_desc_style(("sans-serif", 13))
            .draw()
            .map_err(|e| e.to_string())?;
        let width = 0.8 / np as f64;
        for (k, key) in keys.iter().enumerate() {
            for (p, policy) in report.policies.iter().enumerate() {
                let Some(i) = report
                    .group(policy, key)
                    .and_then(|g| g.cells.iter().find(|c| c.metric == metric))
                    .and_then(|c| c.interval)
                else {
                    continue;
                };
                let x0 = k as f64 - 0.4 + p as f64 * width;
                let colour = COLOURS[p % COLOURS.len()];
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x0, 0.0), (x0 + width * 0.9, i.value)],
                        colour.filled(),
                    )))
                    .map_err(|e| e.to_string())?;
                let xm = x0 + width * 0.45;
                chart
                    .draw_series(std::iter::once(PathElement::new(vec![(xm, i.lo), (xm, i.hi)], BLACK.stroke_width(1))))
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// The policies' colours in a row, left to right in the order of the bars.
fn legend<DB: DrawingBackend>(
    strip: &DrawingArea<DB, plotters::coord::Shift>,
    policies: &[String],
) -> Result<(), String> {
    let font = ("sans-serif", 15).into_font();
    let mid = i32::try_from(LEGEND_HEIGHT / 2).unwrap_or(20);
    let mut x = 16i32;
    for (p, policy) in policies.iter().enumerate() {
        let colour = COLOURS[p % COLOURS.len()];
        strip.draw(&Rectangle::new([(x, mid - 7), (x + 14, mid + 7)], colour.filled())).map_err(|e| e.to_string())?;
        let style = font.clone().color(&BLACK).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ));
        let (w, _) = strip.estimate_text_size(policy, &style).map_err(|e| e.to_string())?;
        strip.draw(&Text::new(policy.clone(), (x + 20, mid), style)).map_err(|e| e.to_string())?;
        x += 20 + i32::try_from(w).unwrap_or(100) + 28;
    }
    Ok(())
}
