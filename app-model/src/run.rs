//! Run A and run B: the two configurations A/B mode shows side by side on the same arrivals.

/// One of the two runs on screen. Outside A/B mode only [`Run::A`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Run {
    #[default]
    A,
    B,
}

impl Run {
    /// Both runs, A first.
    pub const ALL: [Run; 2] = [Run::A, Run::B];

    /// Position in per-run arrays (`[A, B]`).
    pub fn index(self) -> usize {
        match self {
            Run::A => 0,
            Run::B => 1,
        }
    }

    /// The run at position `i` of a per-run list (anything past A is B).
    pub fn at(i: usize) -> Run {
        if i == 0 {
            Run::A
        } else {
            Run::B
        }
    }

    /// "A" or "B", as the page and its events name the run.
    pub fn label(self) -> &'static str {
        match self {
            Run::A => "A",
            Run::B => "B",
        }
    }

    /// Suffix of per-run test ids: `metrics-a`, `editor-b`.
    pub fn slug(self) -> &'static str {
        match self {
            Run::A => "a",
            Run::B => "b",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_at_agree() {
        for r in Run::ALL {
            assert_eq!(Run::at(r.index()), r);
        }
        assert_eq!(Run::at(7), Run::B);
        assert_eq!(Run::B.label(), "B");
        assert_eq!(Run::A.slug(), "a");
    }
}
