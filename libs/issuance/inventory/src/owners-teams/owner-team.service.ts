import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  AuditRecord,
  CertlaneError,
  CreateOwnerRequest,
  CreateTeamRequest,
  ErrorCode,
  ListOwnersRequest,
  ListTeamsRequest,
  OwnerDto,
  OwnerOrTeamDeleted,
  Page,
  RequestContext,
  resolvePage,
  TeamDto,
  UpdateOwnerRequest,
  UpdateTeamRequest,
} from '@certlane/contracts';
import {
  isMissingReference,
  isStillReferenced,
  isUniqueViolation,
  outboxToken,
  pgViolation,
  ServiceOutbox,
} from '@certlane/platform';
import { EntityManager } from 'typeorm';
import { OwnerTeamRepository, ownerDto, OwnerRow, teamDto, TeamRow } from './owner-team.repository';
import { auditRecord, notFound, pageOf, UnitOfWork } from '@certlane/issuance-data-access';

type Kind = 'owner' | 'team';

/** Owner and team changes are configuration (spec 6.1 category `config`). */
const audit = (
  action: string,
  kind: Kind,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => auditRecord('config', kind, action, id, context, details);

const ownerOrTeamNotFound = (kind: Kind, id: string) =>
  notFound(kind === 'owner' ? ErrorCode.OwnerNotFound : ErrorCode.TeamNotFound, kind, id);

const generatedId = (prefix: 'o' | 't') => `${prefix}-${randomBytes(8).toString('hex')}`;

/** "" (or absent on create) means no team; stored as NULL so the foreign key allows it. */
const teamRef = (teamId: string | undefined): string | null => (teamId ? teamId : null);

/** The fields a change touched, for the audit record. */
const changedFields = <T extends object>(before: T, after: T, fields: (keyof T)[]): string[] =>
  fields.filter((field) => before[field] !== after[field]).map(String);

/** Maps the storage errors of a write to the API's codes; anything else passes through. */
function translate(error: unknown, kind: Kind, id: string, name: string, teamId: string | null): unknown {
  if (kind === 'team' && isUniqueViolation(error, ['teams_name_key'])) {
    return new CertlaneError(ErrorCode.TeamExists, `a team named ${JSON.stringify(name)} already exists`, {
      field: 'name',
    });
  }
  if (isUniqueViolation(error, [`${kind}s_pkey`])) {
    return new CertlaneError(
      kind === 'owner' ? ErrorCode.OwnerExists : ErrorCode.TeamExists,
      `${kind} ${JSON.stringify(id)} already exists`,
      { field: 'id' },
    );
  }
  if (kind === 'owner' && isMissingReference(error, ['owners_team_id_fkey'])) {
    return new CertlaneError(
      ErrorCode.ReferenceInvalid,
      `team_id: team ${JSON.stringify(teamId)} does not exist`,
      {
        field: 'team_id',
        id: teamId,
      },
    );
  }
  return error;
}

/**
 * Owners and teams (ADR 0024): plain CRUD whose references the database enforces. Each change
 * writes its audit record in the same transaction.
 */
@Injectable()
export class OwnerTeamService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: OwnerTeamRepository,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  async listTeams(request: ListTeamsRequest): Promise<Page<TeamDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.repository.listTeams(page);
    return pageOf(rows.map(teamDto), total, page);
  }

  async getTeam(id: string): Promise<TeamDto> {
    const row = await this.repository.findTeam(id);
    if (!row) throw ownerOrTeamNotFound('team', id);
    return teamDto(row);
  }

  createTeam(request: CreateTeamRequest, context?: RequestContext): Promise<TeamDto> {
    const row = {
      id: request.id ?? generatedId('t'),
      name: request.name,
      description: request.description ?? '',
    };
    return this.write('team', row.id, row.name, null, async (manager) => {
      const dto = teamDto(await this.repository.insertTeam(manager, row));
      return [dto, audit(AuditAction.TeamCreated, 'team', dto.id, context, { team: dto })];
    });
  }

  updateTeam(request: UpdateTeamRequest, context?: RequestContext): Promise<TeamDto> {
    return this.write('team', request.id, request.name ?? '', null, async (manager) => {
      const current = await this.repository.findTeam(request.id, manager, true);
      if (!current) throw ownerOrTeamNotFound('team', request.id);
      const next: TeamRow = {
        ...current,
        name: request.name ?? current.name,
        description: request.description ?? current.description,
      };
      const dto = teamDto(await this.repository.updateTeam(manager, next));
      return [
        dto,
        audit(AuditAction.TeamUpdated, 'team', dto.id, context, {
          changed_fields: changedFields(current, next, ['name', 'description']),
          team: dto,
        }),
      ];
    });
  }

  /** Refused (409 team_in_use) while owners or certificates reference the team. */
  deleteTeam(id: string, context?: RequestContext): Promise<OwnerOrTeamDeleted> {
    return this.delete('team', id, context);
  }

  async listOwners(request: ListOwnersRequest): Promise<Page<OwnerDto>> {
    const page = resolvePage(request);
    const { rows, total } = await this.repository.listOwners(page, request.team_id);
    return pageOf(rows.map(ownerDto), total, page);
  }

  async getOwner(id: string): Promise<OwnerDto> {
    const row = await this.repository.findOwner(id);
    if (!row) throw ownerOrTeamNotFound('owner', id);
    return ownerDto(row);
  }

  createOwner(request: CreateOwnerRequest, context?: RequestContext): Promise<OwnerDto> {
    const row = {
      id: request.id ?? generatedId('o'),
      name: request.name,
      email: request.email ?? '',
      team_id: teamRef(request.team_id),
    };
    return this.write('owner', row.id, row.name, row.team_id, async (manager) => {
      const dto = ownerDto(await this.repository.insertOwner(manager, row));
      return [dto, audit(AuditAction.OwnerCreated, 'owner', dto.id, context, { owner: dto })];
    });
  }

  updateOwner(request: UpdateOwnerRequest, context?: RequestContext): Promise<OwnerDto> {
    const teamId = request.team_id === undefined ? undefined : teamRef(request.team_id);
    return this.write('owner', request.id, request.name ?? '', teamId ?? null, async (manager) => {
      const current = await this.repository.findOwner(request.id, manager, true);
      if (!current) throw ownerOrTeamNotFound('owner', request.id);
      const next: OwnerRow = {
        ...current,
        name: request.name ?? current.name,
        email: request.email ?? current.email,
        team_id: teamId === undefined ? current.team_id : teamId,
      };
      const dto = ownerDto(await this.repository.updateOwner(manager, next));
      return [
        dto,
        audit(AuditAction.OwnerUpdated, 'owner', dto.id, context, {
          changed_fields: changedFields(current, next, ['name', 'email', 'team_id']),
          owner: dto,
        }),
      ];
    });
  }

  /** Refused (409 owner_in_use) while certificates reference the owner. */
  deleteOwner(id: string, context?: RequestContext): Promise<OwnerOrTeamDeleted> {
    return this.delete('owner', id, context);
  }

  /** Runs one change and its audit record in a transaction, mapping storage errors. */
  private async write<T>(
    kind: Kind,
    id: string,
    name: string,
    teamId: string | null,
    work: (manager: EntityManager) => Promise<[T, AuditRecord]>,
  ): Promise<T> {
    let result: T;
    try {
      result = await this.unitOfWork.run(async (manager) => {
        const [dto, record] = await work(manager);
        await this.outbox.audit(manager, record);
        return dto;
      });
    } catch (error) {
      throw translate(error, kind, id, name, teamId);
    }
    return result;
  }

  private async delete(kind: Kind, id: string, context?: RequestContext): Promise<OwnerOrTeamDeleted> {
    try {
      await this.unitOfWork.run(async (manager) => {
        if (!(await this.repository.delete(manager, kind === 'owner' ? 'owners' : 'teams', id))) {
          throw ownerOrTeamNotFound(kind, id);
        }
        await this.outbox.audit(
          manager,
          audit(kind === 'owner' ? AuditAction.OwnerDeleted : AuditAction.TeamDeleted, kind, id, context, {}),
        );
      });
    } catch (error) {
      if (isStillReferenced(error)) {
        // The referencing table names what still uses it: certificates, or (for a team) owners.
        const usedBy = pgViolation(error)?.table ?? 'certificates';
        throw new CertlaneError(
          kind === 'owner' ? ErrorCode.OwnerInUse : ErrorCode.TeamInUse,
          `${kind} ${JSON.stringify(id)} is still referenced by ${usedBy}; reassign them first`,
          { referenced_by: usedBy },
        );
      }
      throw error;
    }
    return { id };
  }
}
