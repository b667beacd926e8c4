import { NavGroup, RESOURCE_PAGES } from '../pages/resource-pages';

export interface NavItem {
  to: string;
  label: string;
  group: NavGroup;
}

export const NAV_ITEMS: NavItem[] = [
  { to: '/', label: 'Dashboard', group: 'main' },
  { to: '/certificates', label: 'Certificates', group: 'main' },
  ...RESOURCE_PAGES.map((page): NavItem => ({
    to: '/' + page.path,
    label: page.title,
    group: page.group ?? 'main',
  })),
];
