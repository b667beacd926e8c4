import 'reflect-metadata';
import { NotifierModule } from '@certlane/notifier';
import { runService } from '@certlane/platform';

void runService('notifier', [NotifierModule.forRoot()]);
