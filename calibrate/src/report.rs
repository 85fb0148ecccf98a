//! Calibration outputs: the best point as a gate TOML, every point as CSV and JSON,
//! the tables (Markdown) and the Pareto front plot. `gatecrew calibrate --report DIR`
//! re-renders all of them from `summary.json`.

use std::fmt::Write as _;
use std::path::Path;

use gatecrew_protocol::replace::{Replacement, replace};
use plotters::prelude::*;

use crate::eval::PointMetrics;
use crate::objective::Score;
use crate::run::{Calibration, Variant};

/// Writes every output into `out`, each replacing its previous file whole
/// ([`replace`]): a failure leaves the earlier run's file, never a cut one.
pub fn write_all(c: &Calibration, out: &Path) -> std::io::Result<()> {
    replace(&out.join("summary.json"), &serde_json::to_vec_pretty(c).map_err(std::io::Error::other)?)?;
    replace(&out.join("points.json"), &serde_json::to_vec(&c.points).map_err(std::io::Error::other)?)?;
    replace(&out.join("points.csv"), csv(&c.points).as_bytes())?;
    replace(&out.join("best-gate.toml"), gate_toml(&c.best).as_bytes())?;
    replace(&out.join("report.md"), markdown(c).as_bytes())?;
    let plot = Replacement::begin_keeping_extension(&out.join("pareto.svg"))?;
    plot_pareto(c, plot.temp()).map_err(std::io::Error::other)?;
    plot.commit()?;
    Ok(())
}

/// Reads `summary.json` back.
pub fn load_summary(out: &Path) -> Result<Calibration, String> {
    let path = out.join("summary.json");
    let text = gatecrew_protocol::limits::read_text_file(&path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn csv(points: &[PointMetrics]) -> String {
    let mut s =
        String::from("index,wC,wA,wD,wR,wH,theta_low,theta_high,J,TSR,Msg,UER,tokens,T_rec,zero_yield,episodes\n");
    for p in points {
        let w = p.weights;
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{:.6},{:.6},{:.4},{:.4},{:.2},{:.2},{:.4},{}",
            p.index,
            w[0],
            w[1],
            w[2],
            w[3],
            w[4],
            p.theta_low,
            p.theta_high,
            p.score.j,
            p.score.tsr,
            p.score.msg,
            p.score.uer,
            p.score.tokens,
            p.score.t_rec,
            p.score.zero_yield,
            p.score.episodes
        );
    }
    s
}

/// The best point as a `[gate]` table: `gatecrew run --config FILE` overlays it on the
/// default crew, and a crew config can paste it.
pub fn gate_toml(p: &PointMetrics) -> String {
    let w = p.weights;
    format!(
        "# Chosen by `gatecrew calibrate` (grid point {}): J = {:.4} on the calibration split.\n[gate]\nweights = {{ c = {}, a = {}, d = {}, r = {}, h = {} }}\ntheta_low = {}\ntheta_high = {}\n",
        p.index, p.score.j, w[0], w[1], w[2], w[3], w[4], p.theta_low, p.theta_high
    )
}

fn row(name: &str, s: &Score) -> String {
    format!(
        "| {name} | {:.4} | {:.3} | {:.1} | {:.2} | {:.1}% | {:.1}% | {:.1} | {:.1}% | {:.1} |",
        s.j,
        s.tsr,
        s.cs,
        s.msg,
        s.lrr * 100.0,
        s.uer * 100.0,
        s.t_rec,
        s.zero_yield * 100.0,
        s.tokens
    )
}

const HEAD: &str =
    "| | J | TSR | CS | Msg | LRR | UER | T_rec | zero-yield | tokens |\n|---|---|---|---|---|---|---|---|---|---|";

fn params(p: &PointMetrics) -> String {
    let w = p.weights;
    format!("wC {} wA {} wD {} wR {} wH {}, theta {}..{}", w[0], w[1], w[2], w[3], w[4], p.theta_low, p.theta_high)
}

fn variants(title: &str, v: &[Variant]) -> String {
    let mut s = format!("\n## {title}\n\n{HEAD}\n");
    for x in v {
        let flag = if x.unchecked { " (refused in a config)" } else { "" };
        let _ = writeln!(s, "{}", row(&format!("{}{flag}: {}", x.name, params(&x.point)), &x.point.score));
    }
    s
}

/// The share of the episodes evaluated that were simulated rather than replayed, as a
/// percentage with enough digits to show a small one.
pub fn simulated_share(simulated: u64, replayed: u64) -> String {
    let all = simulated + replayed;
    if all == 0 {
        return "none".into();
    }
    let pct = 100.0 * simulated as f64 / all as f64;
    if pct >= 1.0 { format!("{pct:.1}%") } else { format!("{pct:.3}%") }
}

/// The report, as Markdown.
pub fn markdown(c: &Calibration) -> String {
    let mut s = String::from("# Calibration report\n\n");
    let _ = writeln!(
        s,
        "{} grid points evaluated on the calibration split ({} episodes), {} combinations skipped for breaking the weight hierarchy or theta_low < theta_high. Episodes simulated: {}, answered by decision replay: {} ({} of the episodes evaluated were simulated).\n",
        c.points.len(),
        c.calibration_episodes,
        c.skipped,
        c.simulated,
        c.replayed,
        simulated_share(c.simulated, c.replayed)
    );
    if c.evaluated_now > 0 && c.grid_seconds > 0.0 {
        let _ = writeln!(
            s,
            "This run evaluated {} points in {:.2} s: {:.1} points/s.\n",
            c.evaluated_now,
            c.grid_seconds,
            c.evaluated_now as f64 / c.grid_seconds
        );
    }
    let _ = writeln!(s, "## Chosen point\n\n{}\n\n{HEAD}", params(&c.best));
    let _ = writeln!(s, "{}", row("chosen, calibration split", &c.best.score));
    let _ = writeln!(s, "{}", row("defaults, calibration split", &c.default.score));
    let _ =
        writeln!(s, "{}", row(&format!("chosen, held-out test split ({} episodes)", c.test_episodes), &c.best_test));
    let _ = writeln!(s, "{}", row("defaults, held-out test split", &c.default_test));
    let gain = c.best_test.j - c.default_test.j;
    let _ = writeln!(s, "\nHeld-out J gain of the chosen point over the defaults: {gain:+.4}.");
    s.push_str(&variants("Perturbations of the chosen point (calibration split)", &c.perturbation));
    s.push_str(&variants("Gray-zone boundaries (calibration split)", &c.boundary));
    s.push_str("\n## Transfer between template families\n\n| calibrated on | applied to | defaults J | zero-shot J | local J | gain recovered |\n|---|---|---|---|---|---|\n");
    for t in &c.transfer {
        let rec = t.recovered.map_or("no gain to recover".into(), |r| format!("{:.0}%", r * 100.0));
        let _ = writeln!(
            s,
            "| {} | {} | {:.4} | {:.4} | {:.4} | {rec} |",
            t.from.join(", "),
            t.to.join(", "),
            t.default.j,
            t.zero_shot.score.j,
            t.local.score.j
        );
    }
    s.push_str("\nThe Pareto front (TSR against messages and against tokens) is `pareto.svg`; every point is in `points.csv` and `points.json`.\n");
    s
}

/// Points not dominated: no other point has at least the TSR and at most the cost, with
/// one of them strictly better.
pub fn pareto_front(points: &[PointMetrics], cost: impl Fn(&PointMetrics) -> f64) -> Vec<PointMetrics> {
    let mut front: Vec<PointMetrics> = points
        .iter()
        .filter(|p| {
            !points.iter().any(|q| {
                q.score.tsr >= p.score.tsr && cost(q) <= cost(p) && (q.score.tsr > p.score.tsr || cost(q) < cost(p))
            })
        })
        .copied()
        .collect();
    front.sort_by(|a, b| cost(a).total_cmp(&cost(b)));
    front
}

/// A cost axis of the Pareto plot: its label and how to read it off a point.
type CostAxis = (&'static str, fn(&PointMetrics) -> f64);

fn plot_pareto(c: &Calibration, path: &Path) -> Result<(), String> {
    gatecrew_analyze::plot::use_bundled_font();
    let root = SVGBackend::new(path, (1200, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let panels = root.split_evenly((1, 2));
    let costs: [CostAxis; 2] = [("messages per episode", |p| p.score.msg), ("tokens per episode", |p| p.score.tokens)];
    for (area, (label, cost)) in panels.iter().zip(costs) {
        let xs: Vec<f64> = c.points.iter().map(cost).collect();
        let x_max = xs.iter().copied().fold(1e-9, f64::max) * 1.1;
        let ys: Vec<f64> = c.points.iter().map(|p| p.score.tsr).collect();
        let y_min = ys.iter().copied().fold(1.0, f64::min) - 0.01;
        let y_max = ys.iter().copied().fold(0.0, f64::max) + 0.01;
        let mut chart = ChartBuilder::on(area)
            .caption(format!("TSR against {label}"), ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..x_max, y_min..y_max)
            .map_err(|e| e.to_string())?;
        chart.configure_mesh().x_desc(label).y_desc("TSR").draw().map_err(|e| e.to_string())?;
        chart
            .draw_series(
                c.points.iter().map(|p| Circle::new((cost(p), p.score.tsr), 2, RGBColor(150, 150, 150).filled())),
            )
            .map_err(|e| e.to_string())?;
        let front = pareto_front(&c.points, cost);
        chart
            .draw_series(LineSeries::new(
                front.iter().map(|p| (cost(p), p.score.tsr)),
                RGBColor(31, 119, 180).stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label("Pareto front")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 15, y)], RGBColor(31, 119, 180)));
        chart
            .draw_series(std::iter::once(Circle::new(
                (cost(&c.best), c.best.score.tsr),
                6,
                RGBColor(214, 39, 40).filled(),
            )))
            .map_err(|e| e.to_string())?
            .label("chosen")
            .legend(|(x, y)| Circle::new((x + 7, y), 5, RGBColor(214, 39, 40).filled()));
        chart
            .draw_series(std::iter::once(TriangleMarker::new(
                (cost(&c.default), c.default.score.tsr),
                7,
                RGBColor(44, 160, 44).filled(),
            )))
            .map_err(|e| e.to_string())?
            .label("defaults")
            .legend(|(x, y)| TriangleMarker::new((x + 7, y), 5, RGBColor(44, 160, 44).filled()));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::simulated_share;

    #[test]
    fn the_simulated_share_shows_small_shares_too() {
        assert_eq!(simulated_share(1, 3), "25.0%");
        assert_eq!(simulated_share(3, 99_997), "0.003%");
        assert_eq!(simulated_share(0, 0), "none");
    }
}
