//! `etw_classic`: the streaming .etl reader of etw-classic as a Python module.
//!
//! `etw_classic.open(path)` reads the logfile header and hands back a [`Reader`]: an iterator
//! of one dict per event, with the keys and values of the event's line of `etwc etl --json`:
//! both are the description of the `decode` crate's event model ([`DecodedEvent::describe`]),
//! given here to a sink that builds the dict ([`DictSink`]), there to one that writes JSON. The
//! event's own bytes (`data`, `bytes`, and the `data` and `padding` of extended items), hex in
//! the JSON, are `bytes`; the decoded `fields` are as the JSON gives them. The file is read one
//! buffer at a time through [`EtlReader`], never whole.
//!
//! The events are named and their fields decoded with a [`Registry`] built as `etwc etl`
//! builds it ([`Registry::for_trace`]): the manifests and MOF files given with `manifest=` and
//! `mof=` (as `--manifest` and `--mof`), then what a first pass over the file learns (process
//! names, and the descriptions the trace carries).
//!
//! Errors in the file, or in a manifest or MOF file, raise `etw_classic.EtlError` (a
//! `ValueError`) with the message `etwc` prints after `etwc: `; like `etwc`, the reader goes on
//! past a buffer that does not decode and raises once the events it could read have been
//! handed out.
//!
//! The dicts add `provider` after the JSON's keys: who logged the event as `--stats` and the
//! CSV print it (the GUID, or `kernel:GROUP`); the header's dict adds its `start_time`,
//! `end_time` and `boot_time` as dates. The filters of `etwc etl` ([`Filter`]) are keyword
//! arguments of `open`, and run before any dict is built.
//!
//! Time: an event's `filetime` and `time` come from its raw timestamp through the file's clock;
//! `time` is a timezone-aware `datetime` in UTC, its 100 ns truncated to microseconds
//! (`filetime`, an int, is exact).
//! When the logfile header names no clock that can be read, no event has a time: `open` then
//! warns once (`etw_classic.NoTimeWarning`, with the line `etwc` prints after `note: `), the
//! reason stays in `Reader.clock_error`, and every event's `filetime` and `time` are `None`;
//! code that needs the time passes `require_time=True`, and `open` raises `EtlError` with the
//! reason instead. The time order merges raw timestamps and needs no clock.

use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::SchemaRef;
use etw::read::{StoredBuffer, TraceClock};
use etw::wire::UtcDateTime;
use etw::{EtlReader, EtlReaderError, Event};
use etw_classic_decode::arrow::{record_batches, BATCH_ROWS};
use etw_classic_decode::event::filetime_of;
use etw_classic_decode::filter::{parse_provider, parse_time, Filter};
use etw_classic_decode::headers::file_members;
use etw_classic_decode::report::{describe, Problems};
use etw_classic_decode::sink::Sink;
use etw_classic_decode::{DecodedEvent, EventColumns, Registry};
use pyo3::exceptions::{PyOSError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyCapsule, PyDict, PyFloat, PyInt, PyList, PyString};

pyo3::create_exception!(
    etw_classic,
    EtlError,
    PyValueError,
    "The .etl file is not one, is cut short or is malformed, or a manifest or MOF file cannot \
     be read or parsed: the message is the one `etwc` prints, naming the file, and the buffer \
     and its file offset (or the line, in a manifest or MOF file)."
);

pyo3::create_exception!(
    etw_classic,
    NoTimeWarning,
    PyUserWarning,
    "The file's clock cannot be read: no event has a time (`filetime` and `time` are None). The \
     message names the file and the reason, as the line `etwc` prints on stderr."
);

/// Events handed from the time-ordered merge's thread ahead of the Python side, at most.
const TIME_ORDER_QUEUE: usize = 1024;

/// One item of the events: an event's dict, or a problem the reading met (which `etwc`
/// reports at the end, after every event it could read).
type Item = Result<Py<PyDict>, String>;

/// The dict of `event` of buffer `buffer` on `processor`, dated through the file's clock and
/// given its meaning by `registry`, if it passes `filter`: the keys and values of its line of
/// `etwc etl --json` ([`DecodedEvent::describe`]), then `provider` ([`event_dict_of`]).
#[allow(clippy::too_many_arguments)]
fn event_dict(
    py: Python<'_>,
    keys: &mut Keys,
    registry: &Registry,
    filter: &Filter,
    buffer: usize,
    processor: u16,
    clock: Option<TraceClock>,
    event: Event<'_>,
) -> PyResult<Option<Py<PyDict>>> {
    let filetime = filetime_of(&event, clock);
    let decoded = DecodedEvent::new(buffer, processor, event, filetime, registry);
    if !filter.matches(&decoded) {
        return Ok(None);
    }
    event_dict_of(py, keys, &decoded).map(Some)
}

/// The dict of `decoded`: the keys of its line of `etwc etl --json`, `time` a `datetime`
/// ([`DictSink::utc`]), then `provider`: who logged it as `--stats` and the CSV print it (the
/// provider GUID, or `kernel:GROUP` for the kernel's events; `None` when its header names
/// neither).
fn event_dict_of(
    py: Python<'_>,
    keys: &mut Keys,
    decoded: &DecodedEvent<'_, '_>,
) -> PyResult<Py<PyDict>> {
    let mut sink = DictSink::new(py, keys);
    decoded.describe(&mut sink);
    let dict = sink.finish()?;
    let provider = decoded.facts().source.map(|source| source.to_string());
    let key = keys.get(py, "provider");
    dict.bind(py).set_item(key, provider)?;
    Ok(dict)
}

/// The logfile header's dict: the keys of the first line of `etwc etl --json`.
fn header_dict<R: std::io::Read>(
    py: Python<'_>,
    keys: &mut Keys,
    reader: &EtlReader<R>,
) -> PyResult<Py<PyDict>> {
    let names = reader.names();
    let mut sink = DictSink::new(py, keys);
    sink.begin_object();
    file_members(
        &mut sink,
        &reader.system_header(),
        &reader.logfile_header(),
        &names.logger_name.to_string(),
        &names.log_file_name.to_string(),
    );
    sink.end_object();
    let dict = sink.finish()?;
    // The logfile header's FILETIMEs (exact under `logfile_header`) as dates, as the table
    // shows them.
    let header = reader.logfile_header();
    for (key, filetime) in [
        ("start_time", header.start_time()),
        ("end_time", header.end_time()),
        ("boot_time", header.boot_time()),
    ] {
        let time = keys.datetime(py, &UtcDateTime::from_filetime(filetime))?;
        let key = keys.get(py, key);
        dict.bind(py).set_item(key, time)?;
    }
    Ok(dict)
}

/// The keys of the dicts as Python strings, each made once and shared by every dict: a list of
/// events holds one copy of each key, and no string is made and hashed per key per event.
/// With them, `datetime.datetime` and `datetime.timezone.utc`, looked up once.
#[derive(Default)]
struct Keys {
    strings: HashMap<String, Py<PyString>>,
    datetime: Option<(Py<PyAny>, Py<PyAny>)>,
}

impl Keys {
    fn get<'py>(&mut self, py: Python<'py>, key: &str) -> Bound<'py, PyString> {
        if let Some(known) = self.strings.get(key) {
            return known.bind(py).clone();
        }
        let made = PyString::intern(py, key);
        self.strings.insert(key.to_owned(), made.clone().unbind());
        made
    }

    /// `time` as a timezone-aware `datetime` in UTC, its 100 ns intervals truncated to the
    /// microseconds a `datetime` holds; `None` outside the years 1 to 9999 that `datetime`
    /// can hold (the FILETIME keeps the exact value).
    fn datetime<'py>(
        &mut self,
        py: Python<'py>,
        time: &UtcDateTime,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !(1..=9999).contains(&time.year) {
            return Ok(py.None().into_bound(py));
        }
        let (class, utc) = match &self.datetime {
            Some((class, utc)) => (class.bind(py).clone(), utc.bind(py).clone()),
            None => {
                let module = py.import("datetime")?;
                let class = module.getattr("datetime")?;
                let utc = module.getattr("timezone")?.getattr("utc")?;
                self.datetime = Some((class.clone().unbind(), utc.clone().unbind()));
                (class, utc)
            }
        };
        class.call1((
            time.year,
            time.month,
            time.day,
            time.hour,
            time.minute,
            time.second,
            time.intervals / 10,
            utc,
        ))
    }
}

/// A container being filled.
enum Open<'py> {
    Dict(Bound<'py, PyDict>),
    List(Bound<'py, PyList>),
}

/// A [`Sink`] that builds the Python value of what it is given: objects as dicts (a key given
/// twice keeps its first place and its last value, as in `serde_json`'s maps), arrays as
/// lists, integers as ints, floats as floats (`None` when not finite, as the JSON's `null`),
/// strings as strs, the event's bytes as `bytes`, the event's time as a `datetime`.
struct DictSink<'py, 'k> {
    py: Python<'py>,
    keys: &'k mut Keys,
    /// The containers open, each with the key it goes under in its parent.
    open: Vec<(Open<'py>, Option<Bound<'py, PyString>>)>,
    /// The key of the next member of the dict open.
    key: Option<Bound<'py, PyString>>,
    done: Option<Bound<'py, PyAny>>,
    /// The first error Python gave, reported by [`finish`](Self::finish).
    error: Option<PyErr>,
}

impl<'py, 'k> DictSink<'py, 'k> {
    fn new(py: Python<'py>, keys: &'k mut Keys) -> Self {
        Self {
            py,
            keys,
            open: Vec::new(),
            key: None,
            done: None,
            error: None,
        }
    }

    /// The dict built.
    fn finish(self) -> PyResult<Py<PyDict>> {
        if let Some(error) = self.error {
            return Err(error);
        }
        match self.done {
            Some(value) => Ok(value.cast_into::<PyDict>()?.unbind()),
            None => Ok(PyDict::new(self.py).unbind()),
        }
    }

    /// Puts a finished value into the container open, or makes it the result.
    fn place(&mut self, value: PyResult<Bound<'py, PyAny>>) {
        let key = self.key.take();
        let placed = value.and_then(|value| match self.open.last() {
            Some((Open::Dict(dict), _)) => match key {
                Some(key) => dict.set_item(key, value),
                None => Ok(()),
            },
            Some((Open::List(list), _)) => list.append(value),
            None => {
                self.done = Some(value);
                Ok(())
            }
        });
        if let Err(error) = placed {
            self.error.get_or_insert(error);
        }
    }

    fn close(&mut self) {
        if let Some((open, key)) = self.open.pop() {
            self.key = key;
            let value = match open {
                Open::Dict(dict) => dict.into_any(),
                Open::List(list) => list.into_any(),
            };
            self.place(Ok(value));
        }
    }
}

impl Sink for DictSink<'_, '_> {
    fn begin_object(&mut self) {
        let key = self.key.take();
        self.open.push((Open::Dict(PyDict::new(self.py)), key));
    }
    fn end_object(&mut self) {
        self.close();
    }
    fn begin_array(&mut self) {
        let key = self.key.take();
        self.open.push((Open::List(PyList::empty(self.py)), key));
    }
    fn end_array(&mut self) {
        self.close();
    }
    fn key(&mut self, key: &str) {
        self.key = Some(self.keys.get(self.py, key));
    }
    fn null(&mut self) {
        self.place(Ok(self.py.None().into_bound(self.py)));
    }
    fn bool(&mut self, value: bool) {
        self.place(Ok(PyBool::new(self.py, value).to_owned().into_any()));
    }
    fn u64(&mut self, value: u64) {
        let Ok(value) = value.into_pyobject(self.py);
        self.place(Ok(value.into_any()));
    }
    fn i64(&mut self, value: i64) {
        let Ok(value) = value.into_pyobject(self.py);
        self.place(Ok(value.into_any()));
    }
    fn f64(&mut self, value: f64) {
        if value.is_finite() {
            self.place(Ok(PyFloat::new(self.py, value).into_any()));
        } else {
            self.null();
        }
    }
    fn str(&mut self, value: &str) {
        self.place(Ok(PyString::new(self.py, value).into_any()));
    }
    fn bytes(&mut self, value: &[u8]) {
        self.place(Ok(PyBytes::new(self.py, value).into_any()));
    }
    /// The event's `time` (a member of the outermost object) as a timezone-aware `datetime`
    /// ([`Keys::datetime`]); the times among its decoded `fields` stay the JSON's text, as
    /// every other field value does.
    fn utc(&mut self, value: &UtcDateTime) {
        if self.open.len() == 1 {
            let time = self.keys.datetime(self.py, value);
            self.place(time);
        } else {
            self.display(value);
        }
    }
}

/// The events in file order: one buffer read, decoded and turned into lines at a time.
struct FileOrder {
    reader: EtlReader<BufReader<File>>,
    registry: Arc<Registry>,
    filter: Arc<Filter>,
    clock: Option<TraceClock>,
    stored: StoredBuffer,
    /// Grown to what the buffers decompress to, at most the logfile header's `BufferSize`.
    scratch: Vec<u8>,
    /// The lines of the current buffer not handed out yet, and the error its events ended with.
    pending: VecDeque<Item>,
}

impl FileOrder {
    fn next_item(&mut self, py: Python<'_>, keys: &mut Keys) -> Option<Item> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            if let Err(error) = self.reader.read_stored_buffer(&mut self.stored)? {
                return Some(Err(error.to_string()));
            }
            let buffer_size = self.reader.buffer_size();
            let buffer = match self.stored.decode_growing(&mut self.scratch, buffer_size) {
                Ok(buffer) => buffer,
                Err(error) => return Some(Err(error.to_string())),
            };
            let index = buffer.position.index;
            for event in buffer.events() {
                match event {
                    Ok(event) => {
                        let dict = event_dict(
                            py,
                            keys,
                            &self.registry,
                            &self.filter,
                            index,
                            buffer.processor,
                            self.clock,
                            event,
                        );
                        match dict {
                            Ok(Some(dict)) => self.pending.push_back(Ok(dict)),
                            Ok(None) => {}
                            Err(error) => self.pending.push_back(Err(error.to_string())),
                        }
                    }
                    Err(error) => {
                        self.pending.push_back(Err(error.to_string()));
                        break;
                    }
                }
            }
        }
    }
}

/// The events in time order: [`EtlReader::for_each_event_in_time_order`] on a thread of its
/// own, which takes the GIL to build each event's dict and hands the dicts over a bounded
/// channel.
struct TimeOrder {
    /// `None` once dropped, which stops the thread at its next event.
    events: Option<Mutex<Receiver<Item>>>,
    worker: Option<JoinHandle<()>>,
}

impl TimeOrder {
    fn start(
        mut reader: EtlReader<BufReader<File>>,
        registry: Arc<Registry>,
        filter: Arc<Filter>,
        clock: Option<TraceClock>,
    ) -> Self {
        let (sender, receiver) = sync_channel::<Item>(TIME_ORDER_QUEUE);
        let worker = std::thread::spawn(move || {
            let mut keys = Keys::default();
            // The walk ends early, with the error of `send`, when the receiver has gone.
            let _ = reader.for_each_event_in_time_order(|item| {
                let item = match item {
                    Ok(item) => {
                        let (buffer, processor) = (item.position.index, item.processor);
                        let filetime = filetime_of(&item.event, clock);
                        let decoded =
                            DecodedEvent::new(buffer, processor, item.event, filetime, &registry);
                        // The filters run without the GIL.
                        if !filter.matches(&decoded) {
                            return Ok(());
                        }
                        Python::attach(|py| {
                            event_dict_of(py, &mut keys, &decoded)
                                .map_err(|error| error.to_string())
                        })
                    }
                    Err(error) => Err(error.to_string()),
                };
                sender.send(item)
            });
        });
        Self {
            events: Some(Mutex::new(receiver)),
            worker: Some(worker),
        }
    }

    fn next_item(&mut self, py: Python<'_>) -> Option<Item> {
        let events = self.events.as_mut()?.get_mut().ok()?;
        py.detach(move || events.recv().ok())
    }
}

impl Drop for TimeOrder {
    fn drop(&mut self) {
        drop(self.events.take());
        if let Some(worker) = self.worker.take() {
            // The worker takes the GIL to build each event's dict: wait for it without the
            // GIL, or it would wait for us.
            let _ = Python::attach(|py| py.detach(|| worker.join()));
        }
    }
}

enum Source {
    File(Box<FileOrder>),
    Time(TimeOrder),
}

/// An .etl file being read: iterate it for the events (one dict each, as `etwc etl --json`
/// prints them: the header's keys, then `provider_name`, `event_name`, `task_name`,
/// `opcode_name`, `process_name`, `fields` and the other keys of its meaning), `header` for its
/// logfile header. A context manager: `with` closes it.
#[pyclass(module = "etw_classic")]
struct Reader {
    /// The path as given, for the messages.
    path: String,
    header: Py<PyDict>,
    /// `None` once every event has been handed out, or the reader closed.
    source: Option<Source>,
    /// The problems met so far (the first few, the others counted), raised together at the
    /// end as `etwc` prints them.
    problems: Problems,
    closed: bool,
    keys: Keys,
    /// Why the file's clock cannot be read, if it cannot.
    clock_error: Option<String>,
    /// How many more events `limit` lets through, if one was given.
    remaining: Option<u64>,
}

#[pymethods]
impl Reader {
    /// The logfile header: the keys of the first line of `etwc etl --json` (`kind`,
    /// `system_header`, `logfile_header`, `logger_name`, `log_file_name`).
    #[getter]
    fn header(&self, py: Python<'_>) -> Py<PyDict> {
        self.header.clone_ref(py)
    }

    /// The path the reader was opened with.
    #[getter]
    fn path(&self) -> &str {
        &self.path
    }

    /// Whether `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.closed
    }

    /// None when the file's clock can be read; otherwise why not (the logfile header's member
    /// at fault, what was expected and found): every event's `filetime` and `time` are then
    /// None.
    #[getter]
    fn clock_error(&self) -> Option<&str> {
        self.clock_error.as_deref()
    }

    /// Closes the file (and stops the time-ordered merge). Iterating then raises ValueError.
    fn close(&mut self) {
        self.source = None;
        self.closed = true;
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &mut self,
        _type: Option<&Bound<'_, PyAny>>,
        _value: Option<&Bound<'_, PyAny>>,
        _traceback: Option<&Bound<'_, PyAny>>,
    ) -> bool {
        self.close();
        false
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyResult<PyRef<'_, Self>> {
        if slf.closed {
            return Err(PyValueError::new_err("the .etl reader is closed"));
        }
        Ok(slf)
    }

    /// The next event as a dict; at the end, EtlError if any part of the file could not be
    /// read (every event that could be read has been handed out by then).
    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        if self.closed {
            return Err(PyValueError::new_err("the .etl reader is closed"));
        }
        loop {
            let item = match &mut self.source {
                None => None,
                Some(Source::File(source)) => source.next_item(py, &mut self.keys),
                Some(Source::Time(source)) => source.next_item(py),
            };
            match item {
                Some(Ok(dict)) => {
                    if let Some(remaining) = &mut self.remaining {
                        *remaining = remaining.saturating_sub(1);
                        if *remaining == 0 {
                            // The limit reached: nothing further is read.
                            self.source = None;
                        }
                    }
                    return Ok(Some(dict.into_bound(py)));
                }
                Some(Err(problem)) => self.problems.push(problem),
                None => {
                    self.source = None;
                    if self.problems.is_empty() {
                        return Ok(None);
                    }
                    let problems = std::mem::take(&mut self.problems);
                    return Err(EtlError::new_err(format!(
                        "{}: {}",
                        self.path,
                        problems.line()
                    )));
                }
            }
        }
    }

    fn __repr__(&self) -> String {
        let state = if self.closed { "closed" } else { "open" };
        format!("<etw_classic.Reader {:?} {state}>", self.path)
    }
}

/// The exception for an error opening or reading the file: the `OSError` subclass of its
/// `errno` (FileNotFoundError, PermissionError, IsADirectoryError...) naming the file, for an
/// error of the system; otherwise EtlError with the message of `etwc`.
fn open_error(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    shown: &str,
    error: &EtlReaderError,
) -> PyErr {
    if let EtlReaderError::Io {
        buffer: None,
        error: io,
    } = error
    {
        if let Some(code) = io.raw_os_error() {
            let strerror = py
                .import("os")
                .and_then(|os| os.call_method1("strerror", (code,)))
                .and_then(|text| text.extract::<String>())
                .unwrap_or_else(|_| io.to_string());
            // OSError(errno, strerror, filename) makes the subclass of the errno.
            return PyOSError::new_err((code, strerror, path.clone().unbind()));
        }
    }
    EtlError::new_err(describe(shown, error))
}

/// The paths of `value`, the argument `name` of [`open`]: `None`, one path (a str or
/// os.PathLike), or an iterable of paths.
fn paths(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<PathBuf>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    if let Ok(path) = value.extract::<PathBuf>() {
        return Ok(vec![path]);
    }
    let expected = |place: String, what: &str, found: &Bound<'_, PyAny>| {
        let type_name = found
            .get_type()
            .name()
            .map_or_else(|_| "?".to_owned(), |name| name.to_string());
        PyTypeError::new_err(format!("{place}: expected {what}, found {type_name}"))
    };
    let path = "a path (str or os.PathLike)";
    let items = value.try_iter().map_err(|_| {
        expected(
            name.to_owned(),
            &format!("{path} or a list of paths"),
            value,
        )
    })?;
    items
        .enumerate()
        .map(|(index, item)| {
            let item = item?;
            item.extract::<PathBuf>()
                .map_err(|_| expected(format!("{name}[{index}]"), path, &item))
        })
        .collect()
}

/// The strings of `value`, the filter argument `name`: `None`, one str, or an iterable of strs.
fn strings(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    if let Ok(text) = value.extract::<String>() {
        return Ok(vec![text]);
    }
    let items = value.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name}: expected a str or a list of strs, found {}",
            type_name(value)
        ))
    })?;
    items
        .enumerate()
        .map(|(index, item)| {
            let item = item?;
            item.extract::<String>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name}[{index}]: expected a str, found {}",
                    type_name(&item)
                ))
            })
        })
        .collect()
}

/// The name of `value`'s type, for the messages.
fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |name| name.to_string())
}

/// The process ids of `pid`: `None`, one int, or an iterable of ints (0 to 2**32 - 1).
fn process_ids(value: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<u32>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let one = |place: String, item: &Bound<'_, PyAny>| {
        if !item.is_instance_of::<PyInt>() {
            return Err(PyTypeError::new_err(format!(
                "{place}: expected an int, found {}",
                type_name(item)
            )));
        }
        item.extract::<u32>().map_err(|_| {
            PyValueError::new_err(format!(
                "{place}: expected a process id from 0 to 4294967295, found {item}"
            ))
        })
    };
    if value.is_instance_of::<PyInt>() {
        return Ok(vec![one("pid".to_owned(), value)?]);
    }
    let not_ints = || {
        PyTypeError::new_err(format!(
            "pid: expected an int or a list of ints, found {}",
            type_name(value)
        ))
    };
    // A str is iterable, but of strs.
    if value.is_instance_of::<PyString>() {
        return Err(not_ints());
    }
    let items = value.try_iter().map_err(|_| not_ints())?;
    items
        .enumerate()
        .map(|(index, item)| one(format!("pid[{index}]"), &item?))
        .collect()
}

/// The FILETIME of `start` or `end`: a timezone-aware `datetime` (its microseconds, converted
/// to UTC), an ISO 8601 UTC str as `etwc etl --from` takes it (up to seven fractional digits),
/// or an int FILETIME (100 ns since 1601-01-01 UTC, the events' `filetime`). A naive `datetime`
/// is refused: it names no instant.
fn time_bound(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    let Some(value) = value.filter(|value| !value.is_none()) else {
        return Ok(None);
    };
    if value.is_instance_of::<PyInt>() {
        return value.extract::<i64>().map(Some).map_err(|_| {
            PyValueError::new_err(format!(
                "{name}: expected a FILETIME from -2**63 to 2**63 - 1, found {value}"
            ))
        });
    }
    if let Ok(text) = value.extract::<String>() {
        return parse_time(&text)
            .map(Some)
            .map_err(|error| PyValueError::new_err(format!("{name}: {error}")));
    }
    let py = value.py();
    let datetime = py.import("datetime")?;
    if !value.is_instance(&datetime.getattr("datetime")?)? {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected a datetime (timezone-aware), an ISO 8601 UTC str or an int \
             FILETIME, found {}",
            type_name(value)
        )));
    }
    if value.call_method0("utcoffset")?.is_none() {
        return Err(PyValueError::new_err(format!(
            "{name}: expected a timezone-aware datetime (tzinfo=datetime.timezone.utc, for \
             instance), found the naive {value}, which names no instant"
        )));
    }
    let utc = datetime.getattr("timezone")?.getattr("utc")?;
    let value = value.call_method1("astimezone", (utc,))?;
    let part = |attribute: &str| -> PyResult<u32> { value.getattr(attribute)?.extract() };
    let small = |value: u32| u8::try_from(value).unwrap_or(u8::MAX);
    let time = UtcDateTime {
        year: value.getattr("year")?.extract()?,
        month: small(part("month")?),
        day: small(part("day")?),
        hour: small(part("hour")?),
        minute: small(part("minute")?),
        second: small(part("second")?),
        intervals: part("microsecond")?.saturating_mul(10),
    };
    // Every datetime is a time of the calendar, within FILETIME's years.
    Ok(time.to_filetime())
}

/// The filters of `open` and `read_arrow`, as `etwc etl` takes them: every one given must
/// hold; one given several values holds when any of them does ([`Filter::matches`]).
#[allow(clippy::too_many_arguments)]
fn filter_of(
    provider: Option<&Bound<'_, PyAny>>,
    event: Option<&Bound<'_, PyAny>>,
    process: Option<&Bound<'_, PyAny>>,
    pid: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
) -> PyResult<Filter> {
    let providers = strings("provider", provider)?
        .iter()
        .map(|text| {
            parse_provider(text)
                .map_err(|error| PyValueError::new_err(format!("provider: {error}")))
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok(Filter {
        providers,
        events: strings("event", event)?,
        processes: strings("process", process)?,
        process_ids: process_ids(pid)?,
        from: time_bound("start", start)?,
        to: time_bound("end", end)?,
        ..Filter::default()
    })
}

/// An .etl file opened for `open` or `read_arrow`: its reader, the registry that names its
/// events (the user's manifests and MOF files, then the first pass over the file), and its clock.
struct Opened {
    /// The path as given, for the messages.
    shown: String,
    reader: EtlReader<BufReader<File>>,
    registry: Arc<Registry>,
    clock: Option<TraceClock>,
    /// Why the file's clock cannot be read, if it cannot.
    clock_error: Option<String>,
    time_order: bool,
}

impl Opened {
    /// Opens `path`; without a clock, raises when `require_time` or a time filter asks for
    /// one, and otherwise warns (NoTimeWarning) once.
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        order: &str,
        manifest: Option<&Bound<'_, PyAny>>,
        mof: Option<&Bound<'_, PyAny>>,
        require_time: bool,
        filter: &Filter,
    ) -> PyResult<Self> {
        let time_order = match order {
            "file" => false,
            "time" => true,
            other => {
                return Err(PyValueError::new_err(format!(
                    "order: expected \"file\" or \"time\", found {other:?}"
                )))
            }
        };
        let manifests = paths("manifest", manifest)?;
        let mofs = paths("mof", mof)?;
        let file_path: PathBuf = path.extract()?;
        let shown = file_path.display().to_string();
        let reader = File::open(&file_path)
            .map_err(|error| EtlReaderError::Io {
                buffer: None,
                error,
            })
            .and_then(|file| EtlReader::new(BufReader::new(file)))
            .map_err(|error| open_error(py, path, &shown, &error))?;
        // As `etwc etl`: the user's files, then the first pass over the file (a path that is
        // not UTF-8 text, which `etwc` does not take either, gets no first pass).
        let first_pass = file_path.to_str();
        let registry = py
            .detach(|| Registry::for_trace(&manifests, &mofs, first_pass))
            .map_err(EtlError::new_err)?;
        let registry = Arc::new(registry);
        let (clock, clock_error) = match reader.clock() {
            Ok(clock) => (Some(clock), None),
            Err(error) if filter.from.is_some() || filter.to.is_some() => {
                // As `etwc etl --from`: refused with the reason, rather than match nothing.
                return Err(EtlError::new_err(format!(
                    "{shown}: start and end need each event's time, but the file's clock \
                     cannot be read: {error}"
                )));
            }
            Err(error) if require_time => {
                return Err(EtlError::new_err(format!(
                    "{shown}: require_time=True needs each event's time, but the file's clock \
                     cannot be read: {error}"
                )))
            }
            Err(error) => {
                // The line `etwc` prints on stderr, after `note: `.
                let message = format!(
                    "{shown}: no event has a time, as the file's clock cannot be read: {error}"
                );
                PyErr::warn(
                    py,
                    &py.get_type::<NoTimeWarning>(),
                    &std::ffi::CString::new(message).unwrap_or_default(),
                    1,
                )?;
                (None, Some(error.to_string()))
            }
        };
        Ok(Self {
            shown,
            reader,
            registry,
            clock,
            clock_error,
            time_order,
        })
    }
}

/// The record batches of the events that pass `filter`, at most `limit` of them, built
/// without the GIL; and the problems met. In file order, the decode crate's pipeline
/// ([`record_batches`]) on every core (at most [`MAX_WORKERS`]), as `etwc etl --format parquet`
/// reads; in time order, the events one by one.
fn event_batches(
    opened: &mut Opened,
    filter: &Filter,
    limit: Option<u64>,
) -> (Vec<RecordBatch>, Problems) {
    let mut batches = Vec::new();
    let mut problems = Problems::default();
    let (registry, clock) = (&*opened.registry, opened.clock);
    if opened.time_order {
        let mut columns = EventColumns::new();
        let mut remaining = limit.unwrap_or(u64::MAX);
        let _stopped = opened.reader.for_each_event_in_time_order(|item| {
            let item = match item {
                Ok(item) => item,
                Err(error) => {
                    problems.push(error.to_string());
                    return Ok(());
                }
            };
            if remaining == 0 {
                return Err(());
            }
            let filetime = filetime_of(&item.event, clock);
            let decoded = DecodedEvent::new(
                item.position.index,
                item.processor,
                item.event,
                filetime,
                registry,
            );
            if filter.matches(&decoded) {
                columns.push(&decoded);
                remaining -= 1;
                if columns.len() >= BATCH_ROWS {
                    batches.push(columns.finish());
                }
            }
            if remaining > 0 {
                Ok(())
            } else {
                Err(())
            }
        });
        if !columns.is_empty() {
            batches.push(columns.finish());
        }
    } else {
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        record_batches(
            &mut opened.reader,
            registry,
            filter,
            clock,
            limit,
            workers.min(MAX_WORKERS),
            |batch| {
                batches.push(batch);
                true
            },
            |problem| problems.push(problem),
        );
    }
    if batches.is_empty() {
        batches.push(EventColumns::new().finish());
    }
    (batches, problems)
}

/// The threads that decode buffers for `read_arrow` in file order, at most.
const MAX_WORKERS: usize = 8;

/// Reads the events of the .etl file at `path` into a `pyarrow.Table`: one row per event, the
/// columns of the decode crate's `EventColumns` (`buffer`, `offset`, `kind`, `processor`,
/// `size`, `timestamp`, `filetime`, `time` as a UTC timestamp in nanoseconds, `provider`,
/// the names dictionary-encoded, `pid`, `tid`, the descriptor's numbers, `fields` as JSON
/// text, `data` as bytes...), each the value of the key of the same name of the events of
/// `open` (`time` to the nanosecond there, the FILETIME's 100 ns kept).
///
/// The filters, `order`, `manifest` and `mof` are those of `open`; the events are read, named,
/// decoded and filtered in Rust without the GIL (in file order on every core: chunks of
/// buffers decoded in parallel and put back in order, as `etwc etl --format parquet` reads),
/// in record batches of at most 65,536 rows, handed to pyarrow through the Arrow C stream
/// interface (no copy). `table.to_pandas()` and `polars.from_arrow(table)` follow.
///
/// Raises what `open` raises; and EtlError, with the message of `etwc`, when a part of the file
/// cannot be read (no table is returned then).
#[pyfunction]
#[pyo3(signature = (
    path, *, provider = None, event = None, process = None, pid = None, start = None,
    end = None, limit = None, order = "file", manifest = None, mof = None,
))]
#[allow(clippy::too_many_arguments)]
fn read_arrow<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    provider: Option<&Bound<'py, PyAny>>,
    event: Option<&Bound<'py, PyAny>>,
    process: Option<&Bound<'py, PyAny>>,
    pid: Option<&Bound<'py, PyAny>>,
    start: Option<&Bound<'py, PyAny>>,
    end: Option<&Bound<'py, PyAny>>,
    limit: Option<u64>,
    order: &str,
    manifest: Option<&Bound<'py, PyAny>>,
    mof: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let filter = filter_of(provider, event, process, pid, start, end)?;
    let mut opened = Opened::new(py, path, order, manifest, mof, false, &filter)?;
    let (batches, problems) = py.detach(|| event_batches(&mut opened, &filter, limit));
    if !problems.is_empty() {
        return Err(EtlError::new_err(format!(
            "{}: {}",
            opened.shown,
            problems.line()
        )));
    }
    let stream = ArrowStream {
        batches: Some((batches, EventColumns::schema())),
    };
    // One dictionary per name column for the whole table, not one per batch: pyarrow's
    // `group_by` and `join` refuse chunks whose dictionaries differ.
    py.import("pyarrow")?
        .getattr("table")?
        .call1((stream,))?
        .call_method0("unify_dictionaries")
}

/// Record batches for pyarrow, through the Arrow PyCapsule interface: `__arrow_c_stream__`
/// hands them over once as an Arrow C stream (`ArrowArrayStream`), which `pyarrow.table` takes
/// without copying the columns.
#[pyclass(module = "etw_classic")]
struct ArrowStream {
    /// `None` once handed over.
    batches: Option<(Vec<RecordBatch>, SchemaRef)>,
}

#[pymethods]
impl ArrowStream {
    /// The batches as a PyCapsule named `arrow_array_stream`; `requested_schema` is not
    /// followed (the interface lets a producer keep its own schema).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let (batches, schema) = self
            .batches
            .take()
            .ok_or_else(|| PyValueError::new_err("the record batches were already handed over"))?;
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }
}

/// Opens the .etl file at `path` (a str or os.PathLike), reads its logfile header, and
/// learns what names its events and decodes their fields.
///
/// `order` is `"file"` (buffer after buffer as stored) or `"time"` (the events of all
/// buffers merged by timestamp, as `etwc etl --order time`: the merge reads the file twice,
/// with one decoded buffer's events per processor the logfile header counts in memory, at most
/// 256 MiB in all).
///
/// `manifest` and `mof` are a path or a list of paths (str or os.PathLike) of instrumentation
/// manifests (.man, .xml) and classic MOF files (.mof), or of folders of them, as `etwc etl
/// --manifest` and `--mof` take them. Before handing out any event, `open` reads the whole
/// file once, as `etwc etl` does, to learn the process names and the descriptions the trace
/// carries (EventSource manifests, MetaData/EventInfo events; TraceLogging events describe
/// themselves).
///
/// When the file's clock cannot be read, no event has a time: with `require_time=True` that
/// raises EtlError naming the reason; otherwise `open` warns (NoTimeWarning, once) and
/// `Reader.clock_error` keeps the reason.
///
/// The filters, run in Rust before any dict is built, are those of `etwc etl`; every one given
/// must hold, and one given several values (a list) holds when any of them does. `provider`: a
/// provider GUID, `kernel:GROUP` (the `provider` key, as `--stats` and the CSV print it) or a
/// provider name; `event`: an event name, or `provider/event`; `process`: a process name; `pid`:
/// a process id (an int); `start`, `end`: the first and last time let through (inclusive), each
/// a timezone-aware `datetime`, an ISO 8601 UTC str (up to seven fractional digits) or an int
/// FILETIME; `limit`: at most this many events, reading no further. Names are compared without
/// regard to ASCII case; an event without what a filter looks at does not pass it.
///
/// Raises FileNotFoundError (or another OSError) when the file cannot be opened, EtlError when
/// it is not an .etl file or a manifest or MOF file cannot be read or parsed, or when `start`
/// or `end` is given and the file's clock cannot be read; TypeError or ValueError for a filter
/// that is not one.
#[pyfunction]
#[pyo3(signature = (
    path, order = "file", manifest = None, mof = None, *, require_time = false,
    provider = None, event = None, process = None, pid = None, start = None, end = None,
    limit = None,
))]
#[allow(clippy::too_many_arguments)]
fn open(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    order: &str,
    manifest: Option<&Bound<'_, PyAny>>,
    mof: Option<&Bound<'_, PyAny>>,
    require_time: bool,
    provider: Option<&Bound<'_, PyAny>>,
    event: Option<&Bound<'_, PyAny>>,
    process: Option<&Bound<'_, PyAny>>,
    pid: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    limit: Option<u64>,
) -> PyResult<Reader> {
    let filter = Arc::new(filter_of(provider, event, process, pid, start, end)?);
    let opened = Opened::new(py, path, order, manifest, mof, require_time, &filter)?;
    let Opened {
        shown,
        reader,
        registry,
        clock,
        clock_error,
        time_order,
    } = opened;
    let mut keys = Keys::default();
    let header = header_dict(py, &mut keys, &reader)?;
    let source = if time_order {
        Source::Time(TimeOrder::start(reader, registry, filter, clock))
    } else {
        Source::File(Box::new(FileOrder {
            reader,
            registry,
            filter,
            clock,
            stored: StoredBuffer::new(),
            scratch: Vec::new(),
            pending: VecDeque::new(),
        }))
    };
    Ok(Reader {
        path: shown,
        header,
        // `limit=0`: no event, and nothing read.
        source: (limit != Some(0)).then_some(source),
        problems: Problems::default(),
        closed: false,
        keys,
        clock_error,
        remaining: limit,
    })
}

/// Read Event Tracing for Windows .etl files as a stream of dicts, the events of
/// `etwc etl --json`: their headers, and their names and fields decoded from the trace's own
/// descriptions and the manifests and MOF files given.
#[pymodule]
mod etw_classic {
    #[pymodule_export]
    use super::{open, read_arrow, EtlError, NoTimeWarning, Reader};
}
