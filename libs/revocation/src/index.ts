export * from './revocation.module';
export * from './crl/remote-ca-signer';
