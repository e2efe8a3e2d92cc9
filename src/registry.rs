//! Every live guard of this thread, addressed by a number.
//!
//! The plugin's hot path calls a plain function with the guard's number
//! instead of a class method: unwrapping a class instance costs more than the
//! rest of a small call. A number is also safe to hand out: a stale or forged
//! one finds no guard (slots carry a generation), it never reaches freed memory.
//! One table per thread, because each `worker_threads` worker runs its own
//! JavaScript environment on its own thread.

use std::cell::RefCell;

use repeat_tool_guard_core::Guard;

use crate::prefix::Prefix;

/// Slot generations wrap at 2^20 so an id (generation × 2^32 + index) stays
/// an exact JavaScript number.
const GENERATIONS: u32 = 1 << 20;

struct Slot {
    generation: u32,
    guard: Option<Guard>,
}

#[derive(Default)]
struct Table {
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// The hot path's last agent id and tool name, here so that a call
    /// looks up one thread-local, not two.
    prefix: Prefix,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table::default());
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("repeat-tool-guard: this guard is disposed or belongs to another thread")]
    Gone,
    #[error("repeat-tool-guard: the guard was called again while it was busy (from a toJSON or getter of the arguments?)")]
    Busy,
}

/// Stores `guard` and returns its id.
pub fn insert(guard: Guard) -> Result<f64, RegistryError> {
    TABLE
        .try_with(|table| {
            let mut table = table.try_borrow_mut().map_err(|_| RegistryError::Busy)?;
            let index = match table.free.pop() {
                Some(index) => index,
                None => {
                    let index =
                        u32::try_from(table.slots.len()).map_err(|_| RegistryError::Gone)?;
                    table.slots.push(Slot {
                        generation: 0,
                        guard: None,
                    });
                    index
                }
            };
            let slot = table
                .slots
                .get_mut(index as usize)
                .ok_or(RegistryError::Gone)?;
            slot.guard = Some(guard);
            Ok(f64::from(slot.generation) * 4_294_967_296.0 + f64::from(index))
        })
        .map_err(|_| RegistryError::Gone)?
}

/// Splits an id into (generation, index); `None` for anything not an id.
#[inline]
fn parse(id: f64) -> Option<(u32, u32)> {
    // `as` saturates (NaN gives 0): it gives back the same number only for a whole one in range.
    let whole = id as i64;
    if whole as f64 != id || !(0..i64::from(GENERATIONS) << 32).contains(&whole) {
        return None;
    }
    Some(((whole >> 32) as u32, whole as u32))
}

/// Runs `f` on the guard with this id.
pub fn with<R>(id: f64, f: impl FnOnce(&mut Guard) -> R) -> Result<R, RegistryError> {
    with_prefix(id, |guard, _| f(guard))
}

/// Runs `f` on the guard with this id and the hot path's [`Prefix`].
pub fn with_prefix<R>(
    id: f64,
    f: impl FnOnce(&mut Guard, &mut Prefix) -> R,
) -> Result<R, RegistryError> {
    let (generation, index) = parse(id).ok_or(RegistryError::Gone)?;
    TABLE
        .try_with(|table| {
            let mut table = table.try_borrow_mut().map_err(|_| RegistryError::Busy)?;
            let Table { slots, prefix, .. } = &mut *table;
            match slots.get_mut(index as usize) {
                Some(Slot {
                    generation: g,
                    guard: Some(guard),
                }) if *g == generation => Ok(f(guard, prefix)),
                _ => Err(RegistryError::Gone),
            }
        })
        .map_err(|_| RegistryError::Gone)?
}

/// Drops the guard with this id; its slot is reused under a new generation.
pub fn remove(id: f64) {
    let Some((generation, index)) = parse(id) else {
        return;
    };
    // Fails only while the thread is shutting down, when the table goes anyway.
    let _ = TABLE.try_with(|table| {
        let Ok(mut table) = table.try_borrow_mut() else {
            return;
        };
        let Some(slot) = table.slots.get_mut(index as usize) else {
            return;
        };
        if slot.generation != generation || slot.guard.is_none() {
            return;
        }
        // Drop the guard outside the borrow's critical path, after bookkeeping.
        let guard = slot.guard.take();
        slot.generation = (slot.generation + 1) % GENERATIONS;
        table.free.push(index);
        drop(table);
        drop(guard);
    });
}
