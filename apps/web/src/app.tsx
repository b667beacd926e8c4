import { useEffect, useSyncExternalStore } from 'react';
import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { ApiError } from './api/client';
import { auth } from './api/auth-store';
import { restoreSignIn } from './auth/sign-in-actions';
import { SignInPage } from './auth/sign-in-page';
import { Layout } from './components/layout';
import { RouteError } from './components/route-error';
import { DashboardPage } from './pages/dashboard';
import { CertificatesPage } from './pages/certificates';
import { CertificateDetailPage } from './pages/certificate-detail';
import { RESOURCE_PAGES } from './pages/resource-pages';
import { ResourcePage } from './components/resource-page';

const queryClient = new QueryClient({
  queryCache: new QueryCache(),
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      // A 4xx will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

const router = createBrowserRouter([
  { path: '/login', element: <SignInPage />, errorElement: <RouteError /> },
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <DashboardPage /> },
      { path: 'certificates', element: <CertificatesPage /> },
      { path: 'certificates/:id', element: <CertificateDetailPage /> },
      ...RESOURCE_PAGES.map((page) => ({
        path: page.path,
        element: <ResourcePage key={page.path} page={page} />,
      })),
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
]);

export function App() {
  const state = useSyncExternalStore(auth.subscribe, auth.get);
  useEffect(() => {
    void restoreSignIn();
  }, []);
  useEffect(() => {
    // Signed out (a 401 anywhere, or sign-out): nothing cached from that identity stays.
    if (state.status === 'signed-out') queryClient.clear();
  }, [state.status]);
  if (state.status === 'unknown') return <p className="loading">Loading…</p>;
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
