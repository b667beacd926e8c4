/**
 * What a page that failed while rendering shows instead of React Router's developer error page
 * (a stack trace): a plain message and a way out. The link loads the app afresh (a plain `<a>`),
 * leaving behind whatever state of the history entry made the page fail.
 */
export function RouteError() {
  return (
    <main className="sign-in">
      <h1>Something went wrong</h1>
      <p role="alert">This page could not be shown.</p>
      <p>
        <a href="/">Go to the dashboard</a>
      </p>
    </main>
  );
}
