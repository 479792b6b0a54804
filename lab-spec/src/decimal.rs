//! Decimal text to `f64`, exactly as `str::parse::<f64>` does it (same accepted syntax, same
//! correctly rounded value), without the standard library's 10 KB table of 128-bit powers of
//! five, which the wasm would otherwise carry (docs/wasm-size.md). Inputs with at most 19
//! significant digits, a significand up to 2^53 and a power of ten up to 22 take Clinger's fast
//! path (one exactly rounded IEEE operation); all others are divided out exactly with big
//! integers. `tests/decimal.rs` compares both paths with `str::parse` over many inputs.

/// The powers of ten an `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// Significant digits kept: a value halfway between two `f64` has at most 767, so digits past
/// these only matter as "something non-zero follows", which one appended 1 says.
const MAX_DIGITS: usize = 780;

/// Parses `text` like `text.parse::<f64>()`: an optional sign, then `inf`, `infinity` or `nan`
/// in any case, or digits with an optional point and an optional exponent (`1`, `1.`, `.5`,
/// `2.5e-3`); no spaces. `None` where `parse` gives an error.
pub fn parse_f64(text: &str) -> Option<f64> {
    let s = text.as_bytes();
    let (negative, s) = match s.first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if s.is_empty() {
        return None;
    }
    let magnitude = match parse_decimal(s) {
        Some((digits, exp10)) => value(&digits, exp10),
        None => special(s)?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

fn special(s: &[u8]) -> Option<f64> {
    let lower = |w: &str| s.eq_ignore_ascii_case(w.as_bytes());
    if lower("inf") || lower("infinity") {
        Some(f64::INFINITY)
    } else if lower("nan") {
        Some(f64::NAN)
    } else {
        None
    }
}

/// The significant digits (as values 0..=9, no leading zeros, at most [`MAX_DIGITS`] plus a
/// sticky 1) and the power of ten they are scaled by; `None` if `s` is not a decimal number.
fn parse_decimal(s: &[u8]) -> Option<(Vec<u8>, i64)> {
    let mut digits = Vec::new();
    let mut exp10: i64 = 0;
    let mut seen = 0usize;
    let mut sticky = false;
    let mut i = 0;
    let mut push = |d: u8, after_point: bool, digits: &mut Vec<u8>, exp10: &mut i64| {
        if digits.is_empty() && d == 0 {
            if after_point {
                *exp10 -= 1;
            }
        } else if digits.len() < MAX_DIGITS {
            digits.push(d);
            if after_point {
                *exp10 -= 1;
            }
        } else {
            sticky |= d != 0;
            if !after_point {
                *exp10 += 1;
            }
        }
    };
    while i < s.len() && s[i].is_ascii_digit() {
        push(s[i] - b'0', false, &mut digits, &mut exp10);
        seen += 1;
        i += 1;
    }
    if i < s.len() && s[i] == b'.' {
        i += 1;
        while i < s.len() && s[i].is_ascii_digit() {
            push(s[i] - b'0', true, &mut digits, &mut exp10);
            seen += 1;
            i += 1;
        }
    }
    if seen == 0 {
        return None;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        i += 1;
        let negative = match s.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        let mut e: i64 = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            // far beyond any f64 either way; saturating keeps the sign of the answer right
            e = (e * 10 + i64::from(s[i] - b'0')).min(1 << 40);
            i += 1;
        }
        if i == start {
            return None;
        }
        exp10 += if negative { -e } else { e };
    }
    if i != s.len() {
        return None;
    }
    if sticky {
        digits.push(1);
        exp10 -= 1;
    }
    Some((digits, exp10))
}

/// The `f64` nearest to `digits × 10^exp10` (ties to even).
fn value(digits: &[u8], exp10: i64) -> f64 {
    if digits.is_empty() {
        return 0.0;
    }
    let n = digits.len() as i64;
    // value < 10^(n + exp10) ≤ 1e-324, below half the smallest subnormal
    if n + exp10 <= -324 {
        return 0.0;
    }
    // value ≥ 10^(n + exp10 - 1) ≥ 1e310
    if n + exp10 > 310 {
        return f64::INFINITY;
    }
    if n <= 19 && exp10.abs() <= 22 {
        let m = digits.iter().fold(0u64, |m, &d| m * 10 + u64::from(d));
        if m <= 1 << 53 {
            let p = POW10[exp10.unsigned_abs() as usize];
            return if exp10 < 0 { m as f64 / p } else { m as f64 * p };
        }
    }
    exact(digits, exp10)
}

/// Big-integer division: `digits × 10^exp10 = num / den`, quotient scaled to 54 or 55 bits,
/// then rounded to the 53 bits (fewer when subnormal) an `f64` keeps.
fn exact(digits: &[u8], exp10: i64) -> f64 {
    let mut num = Big::from_digits(digits);
    let mut den = Big::one();
    if exp10 >= 0 {
        num.mul_pow10(exp10 as u32);
    } else {
        den.mul_pow10(exp10.unsigned_abs() as u32);
    }
    // num / den lies in [2^(a-b-1), 2^(a-b+1)); scaled by 2^s it lies in [2^53, 2^55)
    let s = 54 - (num.bits() as i64 - den.bits() as i64);
    if s >= 0 {
        num.shl(s as u32);
    } else {
        den.shl(s.unsigned_abs() as u32);
    }
    let (q, rest) = num.div_small_quotient(&den, 55);
    let bits = 64 - i64::from(q.leading_zeros());
    // value = (q + rest) × 2^-s; keep 53 bits, or down to 2^-1074 when subnormal
    let shift = (bits - 53).max(s - 1074);
    if shift > 64 {
        return 0.0;
    }
    let shift = shift as u32;
    let m = q.checked_shr(shift).unwrap_or(0);
    let half = 1u64 << (shift - 1);
    let low = q & ((half << 1).wrapping_sub(1));
    let round_up = low > half || (low == half && (rest || m & 1 == 1));
    let m = m + u64::from(round_up);
    scale(m, shift as i64 - s)
}

/// `m × 2^e` for `m ≤ 2^53`, exact when representable (the caller rounded already).
fn scale(m: u64, e: i64) -> f64 {
    let pow2 = |e: i64| f64::from_bits(((e + 1023) as u64) << 52);
    let x = m as f64;
    if e > 1023 {
        f64::INFINITY
    } else if e >= -1022 {
        x * pow2(e)
    } else {
        // m × 2^(e + 64) is a normal number; the second step lands exactly on a subnormal
        x * pow2(e + 64) * pow2(-64)
    }
}

/// An unsigned big integer, 32-bit limbs, least significant first.
struct Big(Vec<u32>);

impl Big {
    fn one() -> Big {
        Big(vec![1])
    }

    fn from_digits(digits: &[u8]) -> Big {
        let mut b = Big(vec![0]);
        for chunk in digits.chunks(9) {
            let v = chunk.iter().fold(0u32, |v, &d| v * 10 + u32::from(d));
            b.mul_add(10u32.pow(chunk.len() as u32), v);
        }
        b
    }

    fn mul_add(&mut self, by: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.0 {
            let x = u64::from(*limb) * u64::from(by) + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut e: u32) {
        while e > 0 {
            let k = e.min(9);
            self.mul_add(10u32.pow(k), 0);
            e -= k;
        }
    }

    fn bits(&self) -> u32 {
        let top = self.0.iter().rposition(|&l| l != 0).unwrap_or(0);
        top as u32 * 32 + (32 - self.0[top].leading_zeros())
    }

    fn shl(&mut self, n: u32) {
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let x = (*limb << bits) | carry;
                carry = *limb >> (32 - bits);
                *limb = x;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
    }

    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let x = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(x < 0);
            *limb = x.rem_euclid(1 << 32) as u32;
        }
    }

    fn ge(&self, other: &Big) -> bool {
        let n = self.0.len().max(other.0.len());
        for i in (0..n).rev() {
            let (a, b) = (self.0.get(i).copied().unwrap_or(0), other.0.get(i).copied().unwrap_or(0));
            if a != b {
                return a > b;
            }
        }
        true
    }

    /// `self / den` for a quotient below 2^bits, and whether a remainder is left.
    fn div_small_quotient(mut self, den: &Big, bits: u32) -> (u64, bool) {
        let mut q = 0u64;
        for bit in (0..bits).rev() {
            let mut d = Big(den.0.clone());
            d.shl(bit);
            if self.ge(&d) {
                self.sub(&d);
                q |= 1 << bit;
            }
        }
        (q, self.0.iter().any(|&l| l != 0))
    }
}
