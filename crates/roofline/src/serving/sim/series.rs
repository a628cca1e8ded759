//! The queue over time (issue 42's load plot): after every step (or run of alike decode steps)
//! the requests waiting for admission and those inside the engine (admitted: in a
//! disaggregated deployment, decoding), from the run's start, kept to at most [`QUEUE_POINTS`]
//! points by merging neighbours into bins that keep each figure's **maximum** (so a spike of
//! one step survives any number of merges) and the bin's first time.

use super::QUEUE_POINTS;
use serde::{Deserialize, Serialize};

/// One bin of the series: its first sample's time and the most waiting and running in it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct QueuePoint {
    /// Seconds from the run's start (the first request's arrival is at or after 0).
    pub t: f64,
    /// The most requests waiting for admission.
    pub waiting: f64,
    /// The most requests inside the engine (the running batch).
    pub running: f64,
}

impl QueuePoint {
    fn merge(self, b: QueuePoint) -> QueuePoint {
        QueuePoint {
            t: self.t,
            waiting: self.waiting.max(b.waiting),
            running: self.running.max(b.running),
        }
    }
}

/// The series as it is sampled: whole bins of `stride` samples, and the bin being filled.
#[derive(Debug, Clone, Default)]
pub struct QueueSeries {
    bins: Vec<QueuePoint>,
    open: Option<QueuePoint>,
    in_open: usize,
    stride: usize,
}

impl QueueSeries {
    /// Adds a sample.
    pub fn add(&mut self, p: QueuePoint) {
        let stride = self.stride.max(1);
        self.open = Some(self.open.map_or(p, |o| o.merge(p)));
        self.in_open += 1;
        if self.in_open < stride {
            return;
        }
        self.bins.extend(self.open.take());
        self.in_open = 0;
        if self.bins.len() >= 2 * QUEUE_POINTS {
            self.bins = pairs(&self.bins);
            self.stride = stride * 2;
        }
    }

    /// The bins so far, at most [`QUEUE_POINTS`].
    pub fn points(&self) -> Vec<QueuePoint> {
        let mut all = self.bins.clone();
        all.extend(self.open);
        while all.len() > QUEUE_POINTS {
            all = pairs(&all);
        }
        all
    }
}

/// Neighbours merged two by two.
fn pairs(v: &[QueuePoint]) -> Vec<QueuePoint> {
    v.chunks(2)
        .map(|c| c.iter().copied().reduce(QueuePoint::merge).unwrap_or(c[0]))
        .collect()
}
