import { Inject, Injectable } from '@nestjs/common';
import {
  AuditAction,
  AuditRecord,
  CreateProfileRequest,
  ListProfilesRequest,
  Page,
  ProfileDeleted,
  ProfileDto,
  ProfileUpdateResult,
  RequestContext,
  resolvePage,
  UpdateProfileRequest,
} from '@certlane/contracts';
import {
  applyProfileChanges,
  newProfile,
  nextFreeId,
  profileEditNeedsApproval,
  profileEditPayload,
  profileId,
} from '@certlane/issuance-domain';
import { outboxToken, ServiceOutbox } from '@certlane/platform';
import { ApprovalGate } from '../approvals/approval-gate';
import { profileDto, profileNotFound, ProfileRepository } from './profile.repository';
import { auditRecord, UnitOfWork } from '@certlane/issuance-data-access';

/** Profile changes are configuration (spec 6.1 category `config`). */
export const profileAudit = (
  action: string,
  id: string,
  context: RequestContext | undefined,
  details: Record<string, unknown>,
): AuditRecord => auditRecord('config', 'profile', action, id, context, details);

const changedFields = (changes: object) =>
  Object.entries(changes)
    .filter(([key, value]) => key !== 'id' && value !== undefined)
    .map(([key]) => key)
    .sort();

/** Certificate profiles (spec 2.9, 4.5; ADR 0025): CRUD, with edits held for approval. */
@Injectable()
export class ProfileService {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly repository: ProfileRepository,
    private readonly approvals: ApprovalGate,
    @Inject(outboxToken('issuance')) private readonly outbox: ServiceOutbox,
  ) {}

  list(request: ListProfilesRequest): Promise<Page<ProfileDto>> {
    return this.repository.list(resolvePage(request));
  }

  async get(id: string): Promise<ProfileDto> {
    const row = await this.repository.find(id);
    if (!row) throw profileNotFound(id);
    return profileDto(row);
  }

  async create(request: CreateProfileRequest, context?: RequestContext): Promise<ProfileDto> {
    const { fields, dropped } = newProfile(request);
    return this.unitOfWork.run(async (manager) => {
      let id = request.id;
      if (!id) {
        const base = profileId(fields.name);
        id = nextFreeId(base, await this.repository.idsWithPrefix(manager, base));
      }
      const dto = profileDto(await this.repository.insert(manager, id, fields));
      await this.outbox.add(manager, 'issuance.v1.profile.created', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        profileAudit(AuditAction.ProfileCreated, id, context, { profile: dto, dropped_attributes: dropped }),
      );
      return dto;
    });
  }

  /**
   * Spec 4.5: when the stored profile requires approval, or the edit would set requires-approval,
   * nothing changes; a profile_edit approval holds the change (202 `{pending_approval_id}`).
   */
  async update(request: UpdateProfileRequest, context?: RequestContext): Promise<ProfileUpdateResult> {
    const { id, ...changes } = request;
    return this.unitOfWork.run(async (manager): Promise<ProfileUpdateResult> => {
      const current = await this.repository.find(id, manager, 'update');
      if (!current) throw profileNotFound(id);
      if (profileEditNeedsApproval(current, changes)) {
        const approval = await this.approvals.openProfileEdit(
          manager,
          id,
          profileEditPayload(changes),
          context,
        );
        await this.outbox.audit(
          manager,
          profileAudit(AuditAction.ProfileEditRequested, id, context, {
            approval_id: approval.id,
            changed_fields: changedFields(changes),
          }),
        );
        return { applied: false, pending_approval_id: approval.id };
      }
      const { fields, dropped } = applyProfileChanges(current, changes);
      const dto = profileDto(await this.repository.update(manager, id, fields));
      await this.outbox.add(manager, 'issuance.v1.profile.updated', dto, context?.actor_id);
      await this.outbox.audit(
        manager,
        profileAudit(AuditAction.ProfileUpdated, id, context, {
          changed_fields: changedFields(changes),
          dropped_attributes: dropped,
          profile: dto,
        }),
      );
      return { applied: true, profile: dto };
    });
  }

  /** 409 profile_in_use while certificates name it; its pending edits are rejected with it. */
  async delete(id: string, context?: RequestContext): Promise<ProfileDeleted> {
    await this.unitOfWork.run(async (manager) => {
      if (!(await this.repository.find(id, manager, 'update'))) throw profileNotFound(id);
      const certificates = await this.repository.certificateCount(manager, id);
      if (certificates > 0) throw ProfileRepository.inUse(id, certificates);
      const rejected = await this.approvals.rejectEditsOf(manager, id, context);
      await this.repository.delete(manager, id);
      await this.outbox.add(manager, 'issuance.v1.profile.deleted', { id }, context?.actor_id);
      await this.outbox.audit(
        manager,
        profileAudit(AuditAction.ProfileDeleted, id, context, {
          rejected_approvals: rejected.map((a) => a.id),
        }),
      );
    });
    return { id };
  }
}
