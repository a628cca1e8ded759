//! `op_fields!`, the declarative list a kind's field specs and field access are generated
//! from, the access it generates ([`FieldAccess`]) and the splicing of a shared group of fields
//! (the architecture's) into a kind's list.

use super::FieldSpec;
use crate::error::Error;

/// The field access `op_fields!` generates: a kind's (inside its `OpBehavior`) or a group of
/// fields several kinds share (the architecture's, [`ArchFields`](crate::arch::ArchFields)).
pub(crate) trait FieldAccess {
    /// The fields, in form order.
    fn fields(&self) -> &'static [FieldSpec];
    /// A field's text; `None` for an unknown key.
    fn get(&self, key: &str) -> Option<String>;
    /// Sets a field from text.
    fn set_field(&mut self, spec: &FieldSpec, text: &str) -> Result<(), Error>;
    /// A numeric field's value.
    fn get_num(&self, key: &str) -> Option<f64>;
    /// Sets a numeric field; `false` when the key is not a numeric field.
    fn set_num_raw(&mut self, key: &str, x: f64) -> bool;
    /// Hands `f` each field's [`FieldAccess::get_num`] in form order, one call per field of
    /// [`FieldAccess::fields`] (`None` for a non-numeric one), without looking a key up.
    fn each_num(&self, f: &mut dyn FnMut(Option<f64>) -> Result<(), Error>) -> Result<(), Error>;
}

/// A kind's fields with a shared group spliced in: `before`, then the group's specs with
/// the defaults of the kind's default value (`shared`: its group, so `train`'s `layers`
/// defaults to its LLaMA-3 70B's 80 where `llm`'s defaults to 32) and their ranges capped at
/// the kind's `max` (`train` keeps the 1e9 its shape fields always had), then `after`. Built
/// once per kind (a default that differs from the group's is kept for the process).
pub(crate) fn splice(
    before: &[FieldSpec],
    shared: &dyn FieldAccess,
    max: f64,
    after: &[FieldSpec],
) -> Vec<FieldSpec> {
    let group = shared.fields().iter().map(|f| {
        let default = match shared.get(f.key) {
            Some(t) if t != f.default => &*Box::leak(t.into_boxed_str()),
            _ => f.default,
        };
        FieldSpec {
            default,
            max: f.max.min(max),
            ..f.clone()
        }
    });
    before
        .iter()
        .cloned()
        .chain(group)
        .chain(after.iter().cloned())
        .collect()
}

/// Generates a kind's field specs and field access from one declarative list, one line per
/// field in form order: `"key" => access(...): constructor(spec args after the key)`, then
/// what the form needs of it, if anything: `.slider(SIZES)`, `.unit(Unit::Bytes)`, `.folds()`.
///
/// Accesses (`self.f` is the struct field `f`):
///
/// * `num(f)`: an `f64`, read and written as a number (swept, solved);
/// * `dtype(f)`: a [`DType`];
/// * `opt_dtype(f)`: an `Option<DType>`, `None` written as the spec's none word (`auto`);
/// * `choice(f)`: an `id_enum!` enum, by its id;
/// * `yes_no(f)`: a `bool`, as the choice `yes` / `no`;
/// * `derived(get, set)`: text from the method `self.get()`, written by `self.set(spec,
///   text)` (a preset derived from other fields);
/// * `opt_num(get, set, clear, i)`: an optional number read by `self.get(i)`, written by
///   `self.set(i, x)`, cleared by `self.clear()` on the none word (tiles).
/// * `cfg("key")`: a field of a nested config with its own text access (`train`): text from
///   `self.cfg_text("key")`, written by `self.cfg_set(spec, text)`; numbers (numeric specs
///   only) from `self.cfg_num("key")`, written by `self.cfg_set_num("key", x)`.
///
/// It expands to the `OpBehavior` methods `fields`, `get`, `set_field`, `get_num`,
/// `set_num_raw` and `each_num`, inside the kind's `impl OpBehavior` (or a [`FieldAccess`] impl).
///
/// A kind that takes an architecture splices the architecture's fields (declared once, in
/// [`ArchFields`](crate::arch::ArchFields)) into its list with a line `; arch(max);` between
/// two groups of its own entries (`max` caps their ranges): they are read through the kind's `self.arch_fields()` (an
/// `&ArchFields`) and written through `self.set_arch_field(spec, text)` and
/// `self.set_arch_num(key, x)`, their defaults those of the kind's `Default`; the kind then
/// says it takes an architecture (`takes_arch`), which `self.set_arch(a)` sets whole
/// (`apply_arch`: a pasted `config.json`; the kind's module imports `Arch`).
macro_rules! op_fields {
    ($($key:literal => $how:ident($($arg:tt)*) : $ctor:ident($($spec:expr),* $(,)?) $(.$form:ident($($farg:expr),*))*),+ ;
     arch($max:expr) ;
     $($key2:literal => $how2:ident($($arg2:tt)*) : $ctor2:ident($($spec2:expr),* $(,)?) $(.$form2:ident($($farg2:expr),*))*),* $(,)?) => {
        fn fields(&self) -> &'static [$crate::field::FieldSpec] {
            static BEFORE: [$crate::field::FieldSpec; [$($key),+].len()] =
                [$($ctor($key, $($spec),*)$(.$form($($farg),*))*),+];
            static AFTER: [$crate::field::FieldSpec; <[&str]>::len(&[$($key2),*])] =
                [$($ctor2($key2, $($spec2),*)$(.$form2($($farg2),*))*),*];
            static ALL: std::sync::OnceLock<Vec<$crate::field::FieldSpec>> =
                std::sync::OnceLock::new();
            ALL.get_or_init(|| {
                let d = <Self as Default>::default();
                $crate::field::splice(&BEFORE, d.arch_fields(), $max, &AFTER)
            })
        }
        fn get(&self, key: &str) -> Option<String> {
            match key {
                $($key => Some(op_fields!(@get self, $key, $how($($arg)*))),)+
                $($key2 => Some(op_fields!(@get self, $key2, $how2($($arg2)*))),)*
                _ => $crate::field::FieldAccess::get(self.arch_fields(), key),
            }
        }
        fn set_field(
            &mut self,
            spec: &$crate::field::FieldSpec,
            text: &str,
        ) -> Result<(), $crate::error::Error> {
            match spec.key {
                $($key => op_fields!(@set self, spec, text, $how($($arg)*)),)+
                $($key2 => op_fields!(@set self, spec, text, $how2($($arg2)*)),)*
                _ => self.set_arch_field(spec, text)?,
            }
            Ok(())
        }
        #[allow(unreachable_patterns)]
        fn get_num(&self, key: &str) -> Option<f64> {
            match key {
                $($key => op_fields!(@get_num self, $how($($arg)*)),)+
                $($key2 => op_fields!(@get_num self, $how2($($arg2)*)),)*
                _ => $crate::field::FieldAccess::get_num(self.arch_fields(), key),
            }
        }
        #[allow(unreachable_patterns)]
        fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
            match key {
                $($key => op_fields!(@set_num self, x, $how($($arg)*)),)+
                $($key2 => op_fields!(@set_num self, x, $how2($($arg2)*)),)*
                _ => self.set_arch_num(key, x),
            }
        }
        fn each_num(
            &self,
            f: &mut dyn FnMut(Option<f64>) -> Result<(), $crate::error::Error>,
        ) -> Result<(), $crate::error::Error> {
            $(f(op_fields!(@get_num self, $how($($arg)*)))?;)+
            $crate::field::FieldAccess::each_num(self.arch_fields(), f)?;
            $(f(op_fields!(@get_num self, $how2($($arg2)*)))?;)*
            Ok(())
        }
        fn takes_arch(&self) -> bool {
            true
        }
        // `Arch` as the kind's module names it (`field` sits below `arch`).
        fn apply_arch(&mut self, a: &Arch) {
            self.set_arch(a)
        }
    };

    ($($key:literal => $how:ident($($arg:tt)*) : $ctor:ident($($spec:expr),* $(,)?) $(.$form:ident($($farg:expr),*))*),+ $(,)?) => {
        fn fields(&self) -> &'static [$crate::field::FieldSpec] {
            static FIELDS: [$crate::field::FieldSpec; [$($key),+].len()] =
                [$($ctor($key, $($spec),*)$(.$form($($farg),*))*),+];
            &FIELDS
        }
        fn get(&self, key: &str) -> Option<String> {
            match key {
                $($key => Some(op_fields!(@get self, $key, $how($($arg)*))),)+
                _ => None,
            }
        }
        fn set_field(
            &mut self,
            spec: &$crate::field::FieldSpec,
            text: &str,
        ) -> Result<(), $crate::error::Error> {
            match spec.key {
                $($key => op_fields!(@set self, spec, text, $how($($arg)*)),)+
                _ => {}
            }
            Ok(())
        }
        #[allow(unreachable_patterns)]
        fn get_num(&self, key: &str) -> Option<f64> {
            match key {
                $($key => op_fields!(@get_num self, $how($($arg)*)),)+
                _ => None,
            }
        }
        #[allow(unreachable_patterns)]
        fn set_num_raw(&mut self, key: &str, x: f64) -> bool {
            match key {
                $($key => op_fields!(@set_num self, x, $how($($arg)*)),)+
                _ => false,
            }
        }
        fn each_num(
            &self,
            f: &mut dyn FnMut(Option<f64>) -> Result<(), $crate::error::Error>,
        ) -> Result<(), $crate::error::Error> {
            $(f(op_fields!(@get_num self, $how($($arg)*)))?;)+
            Ok(())
        }
    };

    (@get $s:ident, $k:literal, num($f:ident)) => { $crate::units::format_exact($s.$f) };
    (@get $s:ident, $k:literal, dtype($f:ident)) => { $s.$f.as_str().to_string() };
    (@get $s:ident, $k:literal, choice($f:ident)) => { $s.$f.as_str().to_string() };
    (@get $s:ident, $k:literal, yes_no($f:ident)) => { (if $s.$f { "yes" } else { "no" }).to_string() };
    (@get $s:ident, $k:literal, derived($g:ident, $set:ident)) => { $s.$g().to_string() };
    (@get $s:ident, $k:literal, cfg($f:literal)) => { $s.cfg_text($f) };
    (@get $s:ident, $k:literal, opt_dtype($f:ident)) => {
        $s.$f
            .map_or($crate::field::none_word($s.fields(), $k), |t| t.as_str())
            .to_string()
    };
    (@get $s:ident, $k:literal, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => {
        $s.$g($i)
            .map_or_else(|| $crate::field::none_word($s.fields(), $k).to_string(), $crate::units::format_exact)
    };

    (@set $s:ident, $spec:ident, $t:ident, num($f:ident)) => { $s.$f = $spec.parse_num($t)? };
    (@set $s:ident, $spec:ident, $t:ident, dtype($f:ident)) => { $s.$f = $spec.parse_dtype($t)? };
    (@set $s:ident, $spec:ident, $t:ident, choice($f:ident)) => {
        $s.$f = $crate::ids::IdEnum::from_id($t)
            .ok_or_else(|| $crate::error::Error::invalid($spec.key, $t.trim(), $spec.reason()))?
    };
    (@set $s:ident, $spec:ident, $t:ident, yes_no($f:ident)) => {
        $s.$f = $crate::field::parse_choice($spec, $t)? == 0
    };
    (@set $s:ident, $spec:ident, $t:ident, derived($g:ident, $set:ident)) => { $s.$set($spec, $t)? };
    (@set $s:ident, $spec:ident, $t:ident, cfg($f:literal)) => { $s.cfg_set($spec, $t)? };
    (@set $s:ident, $spec:ident, $t:ident, opt_dtype($f:ident)) => {
        $s.$f = if $crate::field::is_none_word($spec, $t, &[]) {
            None
        } else {
            Some($spec.parse_dtype($t)?)
        }
    };
    (@set $s:ident, $spec:ident, $t:ident, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => {
        if $crate::field::is_none_word($spec, $t, &["none"]) {
            $s.$clear()
        } else {
            $s.$set($i, $spec.parse_num($t)?)
        }
    };

    (@get_num $s:ident, num($f:ident)) => { Some($s.$f) };
    (@get_num $s:ident, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => { $s.$g($i) };
    (@get_num $s:ident, cfg($f:literal)) => { $s.cfg_num($f) };
    (@get_num $s:ident, $how:ident($($a:tt)*)) => { None };

    (@set_num $s:ident, $x:ident, num($f:ident)) => {{ $s.$f = $x; true }};
    (@set_num $s:ident, $x:ident, opt_num($g:ident, $set:ident, $clear:ident, $i:expr)) => {{
        $s.$set($i, $x);
        true
    }};
    (@set_num $s:ident, $x:ident, cfg($f:literal)) => { $s.cfg_set_num($f, $x) };
    (@set_num $s:ident, $x:ident, $how:ident($($a:tt)*)) => { false };
}
