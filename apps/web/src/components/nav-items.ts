import { RESOURCE_PAGES } from '../pages/resource-pages';

export const NAV_ITEMS: { to: string; label: string }[] = [
  { to: '/', label: 'Dashboard' },
  { to: '/certificates', label: 'Certificates' },
  ...RESOURCE_PAGES.map((page) => ({ to: '/' + page.path, label: page.title })),
];
