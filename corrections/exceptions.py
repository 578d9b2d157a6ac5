"""Why a correction or a report was refused."""


class CorrectionError(Exception):
    """A correction could not be made."""

    field: str | None = None

    def __init__(self, message: str | None = None):
        self.message = message or (self.__doc__ or "").strip()
        super().__init__(self.message)


class JobNotCorrectable(CorrectionError):
    """Only a finished SEARCH job with a result can be corrected or reported."""

    field = "job_id"


class ListingNotJudged(CorrectionError):
    """The job did not judge that listing: name one of its rounds' verdicts by marketplace and product_id."""

    field = "product_id"


class CorrectionNotFound(CorrectionError):
    """No correction has that id."""

    field = "correction_id"
