//! Pure pixel geometry: segment, polyline and polygon clipping, simplification, dashes.

use super::*;
use crate::charts::geometry::PixelRect;

/// Liang–Barsky segment clipping.
pub(crate) fn clip_segment(a: Pt, b: Pt, r: &PixelRect) -> Option<(Pt, Pt)> {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let mut t0 = 0.0f64;
    let mut t1 = 1.0f64;
    for (p, q) in [
        (-dx, a.0 - r.left),
        (dx, r.right - a.0),
        (-dy, a.1 - r.top),
        (dy, r.bottom - a.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                if t > t1 {
                    return None;
                }
                t0 = t0.max(t);
            } else {
                if t < t0 {
                    return None;
                }
                t1 = t1.min(t);
            }
        }
    }
    if !(t0.is_finite() && t1.is_finite()) {
        return None;
    }
    Some((
        (a.0 + t0 * dx, a.1 + t0 * dy),
        (a.0 + t1 * dx, a.1 + t1 * dy),
    ))
}

/// Clip a polyline (with `None` breaks and possibly non-finite points) to a
/// rectangle; returns the visible runs.
pub(crate) fn clip_polyline(pts: &[Option<Pt>], r: &PixelRect) -> Vec<Vec<Pt>> {
    let finite = |p: &Option<Pt>| p.filter(|(x, y)| x.is_finite() && y.is_finite());
    let mut runs: Vec<Vec<Pt>> = Vec::new();
    let mut current: Vec<Pt> = Vec::new();
    let flush = |current: &mut Vec<Pt>, runs: &mut Vec<Vec<Pt>>| {
        if current.len() >= 2 {
            runs.push(std::mem::take(current));
        } else {
            current.clear();
        }
    };
    for w in pts.windows(2) {
        let (Some(a), Some(b)) = (finite(&w[0]), finite(&w[1])) else {
            flush(&mut current, &mut runs);
            continue;
        };
        match clip_segment(a, b, r) {
            Some((ca, cb)) => {
                let continues = current
                    .last()
                    .is_some_and(|l| (l.0 - ca.0).abs() < 1e-6 && (l.1 - ca.1).abs() < 1e-6);
                if !continues {
                    flush(&mut current, &mut runs);
                    current.push(ca);
                }
                current.push(cb);
                if cb != b {
                    flush(&mut current, &mut runs);
                }
            }
            None => flush(&mut current, &mut runs),
        }
    }
    flush(&mut current, &mut runs);
    runs
}

/// Ramer–Douglas–Peucker simplification (tolerance in pixels). Removes the
/// integer-rounding "staircase" of dense samples and keeps output small.
pub(crate) fn simplify(pts: &[Pt], tol: f64) -> Vec<Pt> {
    if pts.len() <= 2 {
        return pts.to_vec();
    }
    let mut keep = vec![false; pts.len()];
    keep[0] = true;
    keep[pts.len() - 1] = true;
    let mut stack = vec![(0usize, pts.len() - 1)];
    while let Some((a, b)) = stack.pop() {
        if b <= a + 1 {
            continue;
        }
        let (p, q) = (pts[a], pts[b]);
        let (dx, dy) = (q.0 - p.0, q.1 - p.1);
        let len = (dx * dx + dy * dy).sqrt();
        let mut worst = (0.0f64, a);
        for (i, r) in pts.iter().enumerate().take(b).skip(a + 1) {
            let d = if len > 0.0 {
                ((r.0 - p.0) * dy - (r.1 - p.1) * dx).abs() / len
            } else {
                ((r.0 - p.0).powi(2) + (r.1 - p.1).powi(2)).sqrt()
            };
            if d > worst.0 {
                worst = (d, i);
            }
        }
        if worst.0 > tol {
            keep[worst.1] = true;
            stack.push((a, worst.1));
            stack.push((worst.1, b));
        }
    }
    pts.iter()
        .zip(keep)
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

/// Split a polyline into dashes (pattern continues across vertices).
pub(crate) fn dash_polyline(pts: &[Pt], on: f64, off: f64) -> Vec<Vec<Pt>> {
    let on = if on.is_finite() && on > 0.5 { on } else { 4.0 };
    let off = if off.is_finite() && off > 0.5 {
        off
    } else {
        4.0
    };
    let mut out = Vec::new();
    let mut cur: Vec<Pt> = Vec::new();
    let mut drawing = true;
    let mut left = on; // remaining length of the current dash/gap
    for w in pts.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        if !(len.is_finite() && len > 0.0) {
            continue;
        }
        let mut t = 0.0;
        if drawing && cur.is_empty() {
            cur.push(a);
        }
        let mut guard = 0;
        while t < len && guard < 100_000 {
            guard += 1;
            let step = left.min(len - t);
            t += step;
            left -= step;
            let p = (a.0 + (b.0 - a.0) * t / len, a.1 + (b.1 - a.1) * t / len);
            if drawing {
                cur.push(p);
            }
            if left <= 1e-9 {
                if drawing {
                    out.push(std::mem::take(&mut cur));
                    left = off;
                } else {
                    cur.push(p);
                    left = on;
                }
                drawing = !drawing;
            }
        }
    }
    if drawing && cur.len() >= 2 {
        out.push(cur);
    }
    out
}

/// Sutherland–Hodgman clipping of a polygon to a rectangle.
pub(crate) fn clip_polygon(poly: &[Pt], r: &PixelRect) -> Vec<Pt> {
    type Inside = fn(Pt, &PixelRect) -> bool;
    type Cross = fn(Pt, Pt, &PixelRect) -> Pt;
    fn lerp_x(a: Pt, b: Pt, x: f64) -> Pt {
        let t = if b.0 != a.0 {
            (x - a.0) / (b.0 - a.0)
        } else {
            0.0
        };
        (x, a.1 + t * (b.1 - a.1))
    }
    fn lerp_y(a: Pt, b: Pt, y: f64) -> Pt {
        let t = if b.1 != a.1 {
            (y - a.1) / (b.1 - a.1)
        } else {
            0.0
        };
        (a.0 + t * (b.0 - a.0), y)
    }
    let edges: [(Inside, Cross); 4] = [
        (|p, r| p.0 >= r.left, |a, b, r| lerp_x(a, b, r.left)),
        (|p, r| p.0 <= r.right, |a, b, r| lerp_x(a, b, r.right)),
        (|p, r| p.1 >= r.top, |a, b, r| lerp_y(a, b, r.top)),
        (|p, r| p.1 <= r.bottom, |a, b, r| lerp_y(a, b, r.bottom)),
    ];
    let mut out: Vec<Pt> = poly
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    for (inside, cross) in edges {
        if out.is_empty() {
            break;
        }
        let input = std::mem::take(&mut out);
        for i in 0..input.len() {
            let cur = input[i];
            let prev = input[(i + input.len() - 1) % input.len()];
            let (ci, pi) = (inside(cur, r), inside(prev, r));
            if ci {
                if !pi {
                    out.push(cross(prev, cur, r));
                }
                out.push(cur);
            } else if pi {
                out.push(cross(prev, cur, r));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_segment_basics() {
        let r = PixelRect::new(0.0, 0.0, 10.0, 10.0);
        assert_eq!(
            clip_segment((-5.0, 5.0), (15.0, 5.0), &r),
            Some(((0.0, 5.0), (10.0, 5.0)))
        );
        assert_eq!(clip_segment((-5.0, -5.0), (-1.0, -1.0), &r), None);
    }

    #[test]
    fn clip_polyline_breaks() {
        let r = PixelRect::new(0.0, 0.0, 10.0, 10.0);
        let pts = [
            Some((1.0, 1.0)),
            Some((5.0, 5.0)),
            None,
            Some((6.0, 6.0)),
            Some((20.0, 6.0)),
            Some((f64::NAN, 1.0)),
        ];
        let runs = clip_polyline(&pts, &r);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1], vec![(6.0, 6.0), (10.0, 6.0)]);
    }

    #[test]
    fn dashes_cover_length() {
        let d = dash_polyline(&[(0.0, 0.0), (100.0, 0.0)], 6.0, 4.0);
        assert_eq!(d.len(), 10);
        assert!(d.iter().all(|s| s.len() >= 2));
    }

    #[test]
    fn polygon_clip() {
        let r = PixelRect::new(0.0, 0.0, 10.0, 10.0);
        let poly = [(-5.0, -5.0), (15.0, -5.0), (15.0, 15.0), (-5.0, 15.0)];
        let c = clip_polygon(&poly, &r);
        assert_eq!(c.len(), 4);
        assert!(c.iter().all(|p| r.contains(p.0, p.1)));
    }
}
