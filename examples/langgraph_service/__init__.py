"""The agent service over LangGraph: the same endpoints, the LangGraph adapter."""
