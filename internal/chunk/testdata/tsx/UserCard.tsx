import React, { useState } from "react";
import { Avatar } from "@acme/ui";

interface Props {
  name: string;
  avatarUrl?: string;
}

/** Shows one user. */
export function UserCard({ name, avatarUrl }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <div className="card" onClick={() => setOpen(!open)}>
      <Avatar src={avatarUrl} />
      {open && <span>{name}</span>}
    </div>
  );
}

export const UserList = ({ users }: { users: Props[] }) => (
  <ul>
    {users.map((u) => (
      <li key={u.name}><UserCard {...u} /></li>
    ))}
  </ul>
);

export default class Panel extends React.Component<Props> {
  render() {
    return <section>{this.props.name}</section>;
  }
}
