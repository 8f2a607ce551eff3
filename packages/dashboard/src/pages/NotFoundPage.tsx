import { Link } from 'react-router';

export function NotFoundPage() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. <Link to="/">Back to your deployments</Link>.
      </p>
    </section>
  );
}
