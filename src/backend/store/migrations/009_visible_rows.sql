-- Loads in chunks. Each chunk of a load commits on its own, so that other processes get the write
-- lock between chunks; reads see only rows up to `visible_rows`, which a load moves once, when all
-- its rows are in, so a load is seen whole or not at all. A load holds its table's lease
-- (`loading_id`, `loading_until`, renewed with every chunk) from its first write to that moment:
-- two loads never write one table at once, and a load whose process died is known by its lease
-- running out.
ALTER TABLE data_tables ADD COLUMN visible_rows INTEGER NOT NULL DEFAULT 0;
ALTER TABLE data_tables ADD COLUMN loading_id TEXT;
ALTER TABLE data_tables ADD COLUMN loading_until TEXT;

-- Loads before this one wrote each table in one transaction: every row they left is whole.
UPDATE data_tables SET visible_rows = COALESCE(
  (SELECT MAX(row_no) FROM data_rows
    WHERE data_rows.org_id = data_tables.org_id AND data_rows.table_name = data_tables.name),
  0);

-- The rows a dead load left are removed, and removing a data_rows record makes SQLite look for
-- cells still pointing at it (the foreign key of data_cells). The primary key of data_cells puts
-- the column before the row number, so without this index that lookup reads every cell of the
-- table, once per row removed: minutes for a large table.
CREATE INDEX data_cells_row ON data_cells(org_id, table_name, row_no);

-- Without statistics, SQLite's planner prefers the primary key's first two columns to this index
-- for that lookup. One row of statistics in the form ANALYZE writes (cells in all, per
-- organization, per table, per row) makes the index the plan from the start; a later ANALYZE
-- replaces it with measured figures, which choose the index too. `ANALYZE sqlite_schema` creates
-- the statistics table where it is missing, and afterwards has the planner read the new row.
ANALYZE sqlite_schema;
INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('data_cells', 'data_cells_row', '1000000 1000 200 2');
ANALYZE sqlite_schema;
