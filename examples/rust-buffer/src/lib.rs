//! abench's plugin ABI (include/abench/plugin.h, version 1) from Rust: the C structs mirrored
//! with #[repr(C)], one `extern "C"` function per entry, and the one exported symbol
//! `abench_plugin_v1`. The buffer (src/buffer.rs) knows nothing of abench; this file is the
//! whole shim a real crate needs (docs/plugins.md).

mod buffer;

use buffer::{AlignedBuffer, REVISION};
use std::ffi::c_void;
use std::os::raw::{c_char, c_int};

const ABENCH_PLUGIN_ABI_VERSION: u32 = 1;

/// abench_buffer_subject: the functions abench's buffer workloads call.
#[repr(C)]
pub struct AbenchBufferSubject {
    create: unsafe extern "C" fn(*const c_void, usize, usize, usize, c_int) -> *mut c_void,
    reserve: unsafe extern "C" fn(*mut c_void, usize) -> c_int,
    append: unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int,
    data: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    length: unsafe extern "C" fn(*const c_void) -> usize,
    capacity: unsafe extern "C" fn(*const c_void) -> usize,
    destroy: unsafe extern "C" fn(*mut c_void),
}

/// abench_plugin. `allocator` is an abench_allocator*: always NULL here (a buffer subject).
#[repr(C)]
pub struct AbenchPlugin {
    abi_version: u32,
    name: *const c_char,
    version: *const c_char,
    buffer: *const AbenchBufferSubject,
    allocator: *const c_void,
}

// The description is immutable and its pointers name statics: safe to share between threads.
unsafe impl Sync for AbenchPlugin {}

/// The allocation interface abench hands over (abench_allocator*) is not used: this library
/// allocates through std::alloc, which in a worker is the backend's malloc, as in a real
/// program. Counting runs see those calls.
unsafe extern "C" fn create(
    _allocator: *const c_void,
    capacity: usize,
    requested_align: usize,
    preferred_align: usize,
    zeroed: c_int,
) -> *mut c_void {
    match AlignedBuffer::new(capacity, requested_align, preferred_align, zeroed != 0) {
        // The handle itself: one small allocation, as libraries do.
        Ok(buffer) => Box::into_raw(Box::new(buffer)).cast(),
        Err(_) => std::ptr::null_mut(),
    }
}

/// # Safety
/// `buffer` is a handle from create, not yet destroyed (abench's contract).
unsafe fn this<'a>(buffer: *mut c_void) -> &'a mut AlignedBuffer {
    &mut *buffer.cast::<AlignedBuffer>()
}

unsafe extern "C" fn reserve(buffer: *mut c_void, additional: usize) -> c_int {
    if this(buffer).reserve(additional).is_ok() { 0 } else { -1 }
}

unsafe extern "C" fn append(buffer: *mut c_void, bytes: *const c_void, count: usize) -> c_int {
    let bytes = if count == 0 { &[][..] } else { std::slice::from_raw_parts(bytes.cast::<u8>(), count) };
    if this(buffer).append(bytes).is_ok() { 0 } else { -1 }
}

unsafe extern "C" fn data(buffer: *mut c_void) -> *mut c_void {
    this(buffer).data().cast()
}

unsafe extern "C" fn length(buffer: *const c_void) -> usize {
    (*buffer.cast::<AlignedBuffer>()).len()
}

unsafe extern "C" fn capacity(buffer: *const c_void) -> usize {
    (*buffer.cast::<AlignedBuffer>()).capacity()
}

unsafe extern "C" fn destroy(buffer: *mut c_void) {
    drop(Box::from_raw(buffer.cast::<AlignedBuffer>()));
}

static SUBJECT: AbenchBufferSubject = AbenchBufferSubject { create, reserve, append, data, length, capacity, destroy };

static PLUGIN: AbenchPlugin = AbenchPlugin {
    abi_version: ABENCH_PLUGIN_ABI_VERSION,
    name: b"rust-buffer\0".as_ptr().cast(),
    version: REVISION.as_ptr().cast(),
    buffer: &SUBJECT,
    allocator: std::ptr::null(),
};

/// The one symbol abench looks up (ABENCH_PLUGIN_ENTRY).
#[no_mangle]
pub extern "C" fn abench_plugin_v1() -> *const AbenchPlugin {
    &PLUGIN
}
