-- Certificate profiles (spec 2.9) and approval requests (spec 2.10, section 3). ADR 0025.
CREATE TABLE IF NOT EXISTS profiles (
  -- Caller-chosen ids follow the resource id pattern (checked by the API); ids kept from
  -- certificates that named a profile before profiles existed may be any 1..128 characters.
  id                       text PRIMARY KEY CHECK (char_length(id) BETWEEN 1 AND 128),
  name                     text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 255),
  description              text NOT NULL DEFAULT '',
  allowed_key_algorithms   text[] NOT NULL DEFAULT '{}' CHECK (allowed_key_algorithms <@
                             ARRAY['ECDSA-P256', 'ECDSA-P384', 'RSA-2048', 'RSA-3072', 'RSA-4096', 'Ed25519']),
  allowed_ekus             text[] NOT NULL DEFAULT '{}' CHECK (allowed_ekus <@
                             ARRAY['serverAuth', 'clientAuth', 'codeSigning', 'emailProtection', 'timeStamping',
                                   'OCSPSigning']),
  required_csr_attributes  text[] NOT NULL DEFAULT '{}',
  must_staple              boolean NOT NULL DEFAULT false,
  validity_days            integer CHECK (validity_days BETWEEN 1 AND 3650),
  requires_approval        boolean NOT NULL DEFAULT false,
  created_at               timestamptz NOT NULL DEFAULT now(),
  updated_at               timestamptz NOT NULL DEFAULT now()
);

-- certificates.profile_id was a plain text column ('' = none). Ids certificates already name get a
-- permissive profile (no rules), so the reference can be enforced without losing what was stored.
INSERT INTO profiles (id, name, description)
SELECT DISTINCT c.profile_id, left(c.profile_id, 255), 'created by migration 0006 for an existing reference'
FROM certificates c
WHERE c.profile_id <> '' AND NOT EXISTS (SELECT 1 FROM profiles p WHERE p.id = c.profile_id)
ON CONFLICT DO NOTHING;

-- The foreign key needs NULL for "none"; profile_id keeps '' for the existing readers and writers.
ALTER TABLE certificates
  ADD COLUMN IF NOT EXISTS profile_ref text GENERATED ALWAYS AS (NULLIF(profile_id, '')) STORED;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = 'certificates_profile_fkey') THEN
    ALTER TABLE certificates ADD CONSTRAINT certificates_profile_fkey
      FOREIGN KEY (profile_ref) REFERENCES profiles (id) ON DELETE RESTRICT;
  END IF;
END $$;
-- Serves the foreign key's check on profile delete.
CREATE INDEX IF NOT EXISTS certificates_profile_ref ON certificates (profile_ref) WHERE profile_ref IS NOT NULL;

CREATE TABLE IF NOT EXISTS approvals (
  id              text PRIMARY KEY,
  approval_kind   text NOT NULL CHECK (approval_kind IN ('cert_issuance', 'profile_edit')),
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  certificate_id  text REFERENCES certificates (id) ON DELETE RESTRICT,
  job_id          text REFERENCES jobs (id) ON DELETE RESTRICT,
  -- History outlives the profile: no foreign key (pending edits are rejected when it is deleted).
  profile_id      text,
  payload         jsonb,
  requested_by    text NOT NULL,
  decided_by      text,
  decided_at      timestamptz,
  reason          text NOT NULL DEFAULT '',
  created_at      timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT approvals_kind_fields CHECK (
    (approval_kind = 'cert_issuance' AND certificate_id IS NOT NULL AND job_id IS NOT NULL)
    OR (approval_kind = 'profile_edit' AND certificate_id IS NULL AND job_id IS NULL
        AND profile_id IS NOT NULL AND payload IS NOT NULL)
  ),
  CONSTRAINT approvals_decided CHECK ((status = 'pending') = (decided_at IS NULL))
);
CREATE INDEX IF NOT EXISTS approvals_created ON approvals (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS approvals_status ON approvals (status, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS approvals_kind ON approvals (approval_kind, status, created_at DESC, id DESC);
-- At most one open approval per job; the job routes find it by job id.
CREATE UNIQUE INDEX IF NOT EXISTS approvals_pending_job ON approvals (job_id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS approvals_pending_profile ON approvals (profile_id)
  WHERE status = 'pending' AND approval_kind = 'profile_edit';
