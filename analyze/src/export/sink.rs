//! Column types, the row-to-batch macro, and the two file formats.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Float64Builder, Int32Builder, StringBuilder, UInt8Builder, UInt32Builder,
    UInt64Builder,
};
use arrow_schema::{DataType, Schema};
use gatecrew_protocol::replace::Replacement;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::ExportError;

/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 64 * 1024;

/// Output file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet, Snappy-compressed.
    Parquet,
    /// CSV with a header line; nulls are empty fields.
    Csv,
}

impl Format {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
        }
    }
}

/// An Arrow column type: what a row holds and which builder collects it.
pub(crate) trait Col {
    type Value;
    type Builder: ArrayBuilder + Default;
    fn data_type() -> DataType;
    fn append(b: &mut Self::Builder, v: Option<Self::Value>);
}

macro_rules! col {
    ($name:ident, $value:ty, $builder:ty, $dt:expr) => {
        pub(crate) struct $name;
        impl Col for $name {
            type Value = $value;
            type Builder = $builder;
            fn data_type() -> DataType {
                $dt
            }
            fn append(b: &mut Self::Builder, v: Option<$value>) {
                b.append_option(v);
            }
        }
    };
}

col!(U8, u8, UInt8Builder, DataType::UInt8);
col!(U32, u32, UInt32Builder, DataType::UInt32);
col!(U64, u64, UInt64Builder, DataType::UInt64);
col!(I32, i32, Int32Builder, DataType::Int32);
col!(F64, f64, Float64Builder, DataType::Float64);
col!(Bool, bool, BooleanBuilder, DataType::Boolean);
col!(Str, String, StringBuilder, DataType::Utf8);

/// Declares a row struct (every field optional) and its column builders, with the
/// schema in field order. Every append fills every column, so the columns always have
/// the same length.
macro_rules! table {
    ($row:ident, $cols:ident { $($field:ident : $ty:ident),* $(,)? }) => {
        /// One row; a field left `None` is null.
        #[derive(Debug, Default)]
        pub(crate) struct $row {
            $(pub $field: Option<<$ty as Col>::Value>,)*
        }

        pub(crate) struct $cols {
            rows: usize,
            $($field: <$ty as Col>::Builder,)*
        }

        impl $cols {
            pub fn new() -> Self {
                $cols { rows: 0, $($field: Default::default(),)* }
            }

            pub fn schema() -> arrow_schema::Schema {
                arrow_schema::Schema::new(vec![
                    $(arrow_schema::Field::new(stringify!($field), <$ty as Col>::data_type(), true),)*
                ])
            }

            pub fn append(&mut self, r: $row) {
                $(<$ty as Col>::append(&mut self.$field, r.$field);)*
                self.rows += 1;
            }

            pub fn rows(&self) -> usize {
                self.rows
            }

            pub fn finish(&mut self, schema: &std::sync::Arc<arrow_schema::Schema>) -> Result<arrow_array::RecordBatch, arrow_schema::ArrowError> {
                self.rows = 0;
                arrow_array::RecordBatch::try_new(schema.clone(), vec![
                    $(std::sync::Arc::new(arrow_array::builder::ArrayBuilder::finish(&mut self.$field)) as arrow_array::ArrayRef,)*
                ])
            }
        }
    };
}
pub(crate) use table;

/// Where batches go.
enum Writer {
    Parquet(Box<ArrowWriter<File>>),
    Csv(Box<arrow_csv::Writer<File>>),
}

/// One output file, written as its `.partial` and renamed into place only once the
/// whole export has succeeded: a failed, killed or full-disk export leaves the previous
/// table whole.
pub(crate) struct Sink {
    path: PathBuf,
    schema: Arc<Schema>,
    writer: Writer,
    replacement: Replacement,
}

impl Sink {
    pub fn create(format: Format, path: &Path, schema: Schema) -> Result<Self, ExportError> {
        let schema = Arc::new(schema);
        let replacement = Replacement::begin(path).map_err(|e| ExportError::Output(Box::new(e)))?;
        let file = replacement.create().map_err(|e| ExportError::Output(Box::new(e)))?;
        let writer = match format {
            Format::Parquet => {
                // Row groups of 64 Ki rows: the writer holds one row group's encoded
                // pages in memory, so this bounds an export's memory.
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                    .build();
                let w = ArrowWriter::try_new(file, schema.clone(), Some(props)).map_err(|e| write_err(path, e))?;
                Writer::Parquet(Box::new(w))
            }
            Format::Csv => Writer::Csv(Box::new(arrow_csv::WriterBuilder::new().with_header(true).build(file))),
        };
        Ok(Sink { path: path.into(), schema, writer, replacement })
    }

    pub fn schema(&self) -> &Arc<Schema> {
        &self.schema
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn write(&mut self, batch: &RecordBatch) -> Result<(), ExportError> {
        let r = match &mut self.writer {
            Writer::Parquet(w) => w.write(batch).map_err(|e| e.to_string()),
            Writer::Csv(w) => w.write(batch).map_err(|e| e.to_string()),
        };
        r.map_err(|message| ExportError::Write { path: self.path.clone(), message })
    }

    /// Writes the file's end; it is renamed into place by [`Replacement::commit`].
    pub fn close(self) -> Result<Replacement, ExportError> {
        let path = self.path;
        match self.writer {
            Writer::Parquet(w) => w.close().map(drop).map_err(|e| write_err(&path, e))?,
            Writer::Csv(w) => {
                let mut file = w.into_inner();
                std::io::Write::flush(&mut file).map_err(|e| write_err(&path, e))?;
            }
        }
        Ok(self.replacement)
    }
}

/// A CSV file carries no types: DuckDB and polars read a column with no value in it
/// (a kind of event the traces never hold) as text. `schema.json` beside the tables
/// names each column's type as DuckDB (`read_csv(..., types = ...)`) and polars
/// (`pl.read_csv(..., schema = ...)`) spell it: `{"episodes": [{"name", "duckdb",
/// "polars"}, ...], "events": [...]}` in column order.
pub(crate) fn schema_json(tables: &[(&str, &Schema)]) -> serde_json::Value {
    let mut v = serde_json::Map::new();
    for (name, schema) in tables {
        let cols: Vec<serde_json::Value> = schema
            .fields()
            .iter()
            .map(|f| {
                let (duckdb, polars) = type_names(f.data_type());
                serde_json::json!({ "name": f.name(), "duckdb": duckdb, "polars": polars })
            })
            .collect();
        v.insert((*name).to_owned(), cols.into());
    }
    v.into()
}

/// A column type's names in DuckDB and polars.
fn type_names(t: &DataType) -> (&'static str, &'static str) {
    match t {
        DataType::UInt8 => ("UTINYINT", "UInt8"),
        DataType::UInt32 => ("UINTEGER", "UInt32"),
        DataType::UInt64 => ("UBIGINT", "UInt64"),
        DataType::Int32 => ("INTEGER", "Int32"),
        DataType::Float64 => ("DOUBLE", "Float64"),
        DataType::Boolean => ("BOOLEAN", "Boolean"),
        _ => ("VARCHAR", "String"),
    }
}

pub(crate) fn write_err(path: &Path, e: impl std::fmt::Display) -> ExportError {
    ExportError::Write { path: path.into(), message: e.to_string() }
}
