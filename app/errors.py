"""One JSON error shape for every failure: {"error": {"status", "code", "message", "parameter"?}}."""


class ApiError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message, parameter=None):
        super().__init__(message)
        self.message = message
        self.parameter = parameter

    def body(self):
        error = {"status": self.status, "code": self.code, "message": self.message}
        if self.parameter:
            error["parameter"] = self.parameter
        return {"error": error}


class BadParameter(ApiError):
    status, code = 400, "bad_parameter"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Unauthorized(ApiError):
    status, code = 401, "unauthorized"


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class Conflict(ApiError):
    status, code = 409, "conflict"


class AnswerTooLarge(ApiError):
    status, code = 422, "answer_too_large"


class TooManyRows(ApiError):
    status, code = 422, "too_many_rows"


class ReadOnly(ApiError):
    status, code = 503, "read_only"


class TargetBusy(ApiError):
    status, code = 503, "target_busy"


class DatabaseUnavailable(ApiError):
    status, code = 503, "database_unavailable"


class NotGranted(DatabaseUnavailable):
    """The database refused a statement for want of a privilege or of the object itself (Oracle: ORA-00942,
    ORA-00904, ORA-01031, ORA-06550, PLS-00201; `ora_code` says which); a 503 like any refusal unless the caller,
    knowing the object exists, names the grant (MissingGrant)."""

    def __init__(self, message, parameter=None, ora_code: str = ""):
        super().__init__(message, parameter)
        self.ora_code = ora_code


class MissingGrant(ApiError):
    """An optional feature whose grant the database user lacks: the message names the grant."""

    status, code = 403, "missing_grant"


class NotLicensed(ApiError):
    """A statement that needs a management pack the database's licence settings do not enable (app/store/licence.py):
    refused before it is sent; the message names the pack and CONTROL_MANAGEMENT_PACK_ACCESS's value."""

    status, code = 403, "not_licensed"


class DatabaseTimeout(ApiError):
    status, code = 504, "database_timeout"


def error_body(status, code, message):
    return {"error": {"status": status, "code": code, "message": message}}
