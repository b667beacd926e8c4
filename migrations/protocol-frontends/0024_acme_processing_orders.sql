-- Abandoned orders (ADR 0053 amendment, tenth stop): the sweep reads the few processing orders,
-- those waiting for an approval past their expiry and those a finalize took long ago.
CREATE INDEX IF NOT EXISTS acme_orders_processing_idx ON acme_orders (updated_at) WHERE status = 'processing';
