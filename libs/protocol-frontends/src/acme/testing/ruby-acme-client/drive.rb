# frozen_string_literal: true

# A driver of Ruby's acme-client gem (Debian's ruby-acme-client, unmodified; unixcharles/acme-client,
# over Faraday and Ruby's OpenSSL), used as its README shows. It runs one account's whole life:
# the EAB profile's refusal of an unbound newAccount (and a bound one where the gem can bind), a
# registration, a contact update, an order of the given names with http-01 (the key authorization
# written under --webroot, which the test serves on the server's http-01 port), finalization with
# the gem's CertificateRequest, download, key rollover (account_key_change), the old key refused,
# revocation by the new key, deactivation and the refusal of an order after it. It prints one JSON
# summary on stdout and exits 1 (with "error" in the summary) when a step fails. The gem's 2.0.9
# writes EC coordinates without their leading zero bytes, so the caller picks keys without them.
# Run by acme-library-clients.int-spec.ts.

require 'acme-client'
require 'fileutils'
require 'json'
require 'optparse'

options = { names: [] }
OptionParser.new do |parser|
  parser.on('--directory URL', 'the ACME directory URL') { |v| options[:directory] = v }
  parser.on('--eab-directory URL', 'a directory whose profile requires EAB') { |v| options[:eab_directory] = v }
  parser.on('--eab-kid KID', 'external account binding key id') { |v| options[:eab_kid] = v }
  parser.on('--eab-key KEY', 'external account binding HMAC key, base64url') { |v| options[:eab_key] = v }
  parser.on('--ca FILE', 'PEM file of the CA the server TLS certificate chains to') { |v| options[:ca] = v }
  parser.on('--webroot DIR', 'where .well-known/acme-challenge/<token> files go') { |v| options[:webroot] = v }
  parser.on('--names A,B', Array, 'DNS names to order') { |v| options[:names] = v }
  parser.on('--out FILE', 'file the certificate chain (PEM) is written to') { |v| options[:out] = v }
end.parse!

CONNECTION = { ssl: { ca_file: options.fetch(:ca) } }.freeze
summary = { 'version' => Acme::Client::VERSION }

# The client's own polling of a resource (as the gem's README does it), bounded in time.
def await_status(resource, what)
  deadline = Time.now + 60
  while %w[pending processing].include?(resource.status)
    raise "#{what} still #{resource.status} after 60 s" if Time.now > deadline

    sleep 0.1
    resource.reload
  end
  resource.status
end

# acme-client 2.0.9 writes an EC key's x and y with OpenSSL::BN#to_s(2), which drops leading zero
# bytes; RFC 7518 6.2.1.2 wants the full coordinate length. A key with a zero first byte in
# either coordinate (1 in 128) is skipped, so that the gem sends a well-formed JWK.
def ec_key(curve)
  loop do
    key = OpenSSL::PKey::EC.generate(curve)
    point = key.public_key.to_bn.to_s(2)
    size = (point.bytesize - 1) / 2
    return key unless point.getbyte(1).zero? || point.getbyte(1 + size).zero?
  end
end

def error_name(error)
  "#{error.class.name}: #{error.message}"
end

begin
  # RFC 8555 7.3.4: the EAB profile refuses a newAccount without a binding.
  supports_eab = Acme::Client.instance_method(:new_account).parameters.any? do |_, name|
    name == :external_account_binding
  end
  unbound = Acme::Client.new(private_key: ec_key('prime256v1'), directory: options.fetch(:eab_directory),
                             connection_options: CONNECTION)
  summary['eab'] = { 'required' => unbound.external_account_required, 'supported' => supports_eab }
  begin
    unbound.new_account(contact: 'mailto:ops@example.com', terms_of_service_agreed: true)
    summary['eab']['refused'] = nil
  rescue Acme::Client::Error => e
    summary['eab']['refused'] = e.class.name
  end

  account_key = OpenSSL::PKey::RSA.new(2048)
  directory = supports_eab && options[:eab_kid] ? options.fetch(:eab_directory) : options.fetch(:directory)
  client = Acme::Client.new(private_key: account_key, directory: directory, connection_options: CONNECTION)
  registration = { contact: 'mailto:ops@example.com', terms_of_service_agreed: true }
  if directory == options[:eab_directory]
    registration[:external_account_binding] = { kid: options[:eab_kid], hmac_key: options[:eab_key] }
  end
  account = client.new_account(**registration)
  summary['account'] = { 'url' => account.kid, 'status' => account.status, 'directory' => directory }

  updated = client.account_update(contact: 'mailto:security@example.com')
  summary['account']['contact'] = updated.contact

  order = client.new_order(identifiers: options[:names])
  challenge_dir = File.join(options.fetch(:webroot), '.well-known', 'acme-challenge')
  FileUtils.mkdir_p(challenge_dir)
  summary['authorizations'] = order.authorizations.map do |authorization|
    challenge = authorization.http01
    File.write(File.join(options[:webroot], challenge.filename), challenge.file_content)
    challenge.request_validation
    status = await_status(challenge, "http-01 of #{authorization.domain}")
    authorization.reload
    { 'domain' => authorization.domain, 'challenge' => status, 'status' => authorization.status }
  end

  order.reload
  summary['order'] = { 'ready' => order.status }
  csr = Acme::Client::CertificateRequest.new(private_key: ec_key('prime256v1'), common_name: options[:names][0],
                                             names: options[:names])
  # The gem's CertificateRequest writes version 2 (RFC 2986 says 0; fixed by unixcharles/acme-client#243),
  # which the server reads as v1, as Boulder and Pebble do.
  order.finalize(csr: csr)
  summary['order']['finalized'] = await_status(order, 'the order')
  pem = order.certificate
  File.write(options.fetch(:out), pem)

  # RFC 8555 7.3.5: the account moves to a new key; the old one finds no account any more.
  old_thumbprint = client.jwk.thumbprint
  rolled = client.account_key_change(new_private_key: ec_key('secp384r1'))
  summary['key_change'] = { 'status' => rolled.status, 'jwk_alg' => client.jwk.jwa_alg,
                            'thumbprints' => [old_thumbprint, client.jwk.thumbprint] }
  summary['key_change']['reloaded'] = client.account.status
  old = Acme::Client.new(private_key: account_key, directory: directory, connection_options: CONNECTION)
  begin
    old.account
    summary['key_change']['old_key'] = nil
  rescue Acme::Client::Error => e
    summary['key_change']['old_key'] = e.class.name
  end

  # RFC 8555 7.6, signed by the account's new key; 4: superseded.
  summary['revoked'] = client.revoke(certificate: pem, reason: 4)
  begin
    client.revoke(certificate: pem)
    summary['revoked_again'] = nil
  rescue Acme::Client::Error => e
    summary['revoked_again'] = error_name(e)
  end

  summary['deactivated'] = client.account_deactivate.status
  begin
    client.new_order(identifiers: options[:names])
    summary['after_deactivation'] = nil
  rescue Acme::Client::Error => e
    summary['after_deactivation'] = error_name(e)
  end
  puts JSON.generate(summary)
rescue StandardError => e
  summary['error'] = "#{error_name(e)}\n#{e.backtrace.first(5).join("\n")}"
  puts JSON.generate(summary)
  exit 1
end
