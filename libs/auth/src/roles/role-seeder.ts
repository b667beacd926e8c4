import { Injectable, OnModuleInit } from '@nestjs/common';
import { RoleRepository } from './role.repository';

/** Seeds the seven default roles at start (idempotent), before any request is served. */
@Injectable()
export class RoleSeeder implements OnModuleInit {
  constructor(private readonly roles: RoleRepository) {}

  onModuleInit(): Promise<void> {
    return this.roles.seedDefaultRoles();
  }
}
