// claims.mjs
export async function getCustomJwtClaims({ context, environmentVariables, api }) {
  if (context.user?.customData.locked) api.denyAccess('this account is locked');
  return {
    tenant: environmentVariables.TENANT,
    support_ticket: context.grant.subjectTokenContext?.ticketId, // token exchange only
  };
}
