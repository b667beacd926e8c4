import 'reflect-metadata';
import { HealthMonitorModule } from '@certlane/health-monitor';
import { runService } from '@certlane/platform';

void runService('health-monitor', [HealthMonitorModule.forRoot()]);
