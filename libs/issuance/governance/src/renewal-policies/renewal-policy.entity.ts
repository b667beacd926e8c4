import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'renewal_policies' })
export class RenewalPolicyEntity {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'integer' })
  renewal_window_days!: number;

  @Column({ type: 'integer' })
  max_retries!: number;

  @Column({ type: 'integer' })
  retry_interval_seconds!: number;

  @Column({ type: 'integer', array: true })
  alert_thresholds_days!: number[];

  @CreateDateColumn({ type: 'timestamptz' })
  created_at!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at!: Date;
}
