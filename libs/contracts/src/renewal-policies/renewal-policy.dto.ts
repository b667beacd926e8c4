import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Max,
  Min,
} from 'class-validator';
import { PageQuery } from '../pagination/page';
import { RENEWAL_POLICY_LIMITS as L } from './renewal-policy-limits';

/** A renewal policy as the API returns it. */
export interface RenewalPolicyDto {
  id: string;
  name: string;
  renewal_window_days: number;
  max_retries: number;
  retry_interval_seconds: number;
  alert_thresholds_days: number[];
  created_at: string;
  updated_at: string;
}

const bounded = (field: string, min: number, max: number) => [
  IsInt({ message: `${field} must be an integer` }),
  Min(min, { message: `${field} must be between ${min} and ${max}` }),
  Max(max, { message: `${field} must be between ${min} and ${max}` }),
];

function apply(decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((d) => d(target, key));
}

const Name = () =>
  apply([
    IsString({ message: 'name must be a string' }),
    Length(L.name.min, L.name.max, { message: `name must be ${L.name.min} to ${L.name.max} characters` }),
  ]);
const WindowDays = () =>
  apply(bounded('renewal_window_days', L.renewalWindowDays.min, L.renewalWindowDays.max));
const MaxRetries = () => apply(bounded('max_retries', L.maxRetries.min, L.maxRetries.max));
const RetryInterval = () =>
  apply(bounded('retry_interval_seconds', L.retryIntervalSeconds.min, L.retryIntervalSeconds.max));
const Thresholds = () =>
  apply([
    IsArray({ message: 'alert_thresholds_days must be an array of integers' }),
    ArrayMaxSize(L.alertThresholdDays.maxEntries, {
      message: `alert_thresholds_days holds at most ${L.alertThresholdDays.maxEntries} entries`,
    }),
    ArrayUnique({ message: 'alert_thresholds_days must not repeat a value' }),
    IsInt({ each: true, message: 'each alert_thresholds_days entry must be an integer' }),
    Min(L.alertThresholdDays.min, {
      each: true,
      message: `each alert_thresholds_days entry must be between ${L.alertThresholdDays.min} and ${L.alertThresholdDays.max}`,
    }),
    Max(L.alertThresholdDays.max, {
      each: true,
      message: `each alert_thresholds_days entry must be between ${L.alertThresholdDays.min} and ${L.alertThresholdDays.max}`,
    }),
  ]);

/** POST /api/v1/renewal-policies. `max_retries` has no default (spec 2.8), so it is required. */
export class CreateRenewalPolicyRequest {
  @Name()
  name!: string;

  @IsOptional()
  @WindowDays()
  renewal_window_days?: number;

  @MaxRetries()
  max_retries!: number;

  @IsOptional()
  @RetryInterval()
  retry_interval_seconds?: number;

  @IsOptional()
  @Thresholds()
  alert_thresholds_days?: number[];
}

/** The body of PUT /api/v1/renewal-policies/{id}: fields left out keep their stored value. */
export class RenewalPolicyChanges {
  @IsOptional()
  @Name()
  name?: string;

  @IsOptional()
  @WindowDays()
  renewal_window_days?: number;

  @IsOptional()
  @MaxRetries()
  max_retries?: number;

  @IsOptional()
  @RetryInterval()
  retry_interval_seconds?: number;

  @IsOptional()
  @Thresholds()
  alert_thresholds_days?: number[];
}

export class RenewalPolicyIdRequest {
  @IsString()
  @IsNotEmpty()
  id!: string;
}

export class UpdateRenewalPolicyRequest extends RenewalPolicyChanges {
  @IsString()
  @IsNotEmpty()
  id!: string;
}

export class ListRenewalPoliciesRequest extends PageQuery {}

export interface RenewalPolicyDeleted {
  id: string;
}
