//! Tables indexed by a dense id (an item's or a block's number in the data file), so a
//! lookup is an index, not a hash.

/// A value or none per id `0..len`.
#[derive(Debug, Clone)]
pub(super) struct ById<T>(Vec<Option<T>>);

impl<T: Copy> ById<T> {
    /// `len` ids, each set to the last value `pairs` gives it (as inserting into a map
    /// in that order would leave it).
    pub(super) fn new(len: usize, pairs: impl IntoIterator<Item = (usize, T)>) -> Self {
        let mut v = vec![None; len];
        for (i, t) in pairs {
            v[i] = Some(t);
        }
        ById(v)
    }

    /// The value of id `i`, if it has one.
    #[inline]
    pub(super) fn get(&self, i: usize) -> Option<T> {
        self.0.get(i).copied().flatten()
    }

    /// The ids with a value and the values, in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (usize, T)> + '_ {
        self.0.iter().enumerate().filter_map(|(i, t)| t.map(|t| (i, t)))
    }
}

/// A list per id `0..len`, all in one buffer.
#[derive(Debug, Clone)]
pub(super) struct Lists<T> {
    /// List `i` is `items[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Lists<T> {
    /// `len` lists; each holds what `pairs` files under its id, in the order given.
    pub(super) fn new(len: usize, pairs: impl IntoIterator<Item = (usize, T)>) -> Self {
        let pairs: Vec<(usize, T)> = pairs.into_iter().collect();
        let mut starts = vec![0u32; len + 1];
        for &(i, _) in &pairs {
            starts[i + 1] += 1;
        }
        for i in 0..len {
            starts[i + 1] += starts[i];
        }
        let mut fill: Vec<u32> = starts[..len].to_vec();
        let mut items: Vec<Option<T>> = vec![None; pairs.len()];
        for (i, t) in pairs {
            items[fill[i] as usize] = Some(t);
            fill[i] += 1;
        }
        Lists { starts, items: items.into_iter().map(|t| t.expect("every slot is filled once")).collect() }
    }

    /// List `i` (empty for an id past the end).
    #[inline]
    pub(super) fn get(&self, i: usize) -> &[T] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_the_order_given_per_id() {
        let l = Lists::new(4, [(2, 'a'), (0, 'b'), (2, 'c'), (3, 'd'), (2, 'e')]);
        assert_eq!(l.get(0), &['b']);
        assert_eq!(l.get(1), &[] as &[char]);
        assert_eq!(l.get(2), &['a', 'c', 'e']);
        assert_eq!(l.get(3), &['d']);
        assert_eq!(l.get(4), &[] as &[char]);
    }

    #[test]
    fn by_id_keeps_the_last_value_given() {
        let t = ById::new(3, [(1, 10), (2, 5), (1, 11)]);
        assert_eq!(t.get(0), None);
        assert_eq!(t.get(1), Some(11));
        assert_eq!(t.get(7), None);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![(1, 11), (2, 5)]);
    }
}
