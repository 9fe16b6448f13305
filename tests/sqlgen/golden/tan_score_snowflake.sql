WITH wml_input AS (
  SELECT
    *
  FROM (
    SELECT
      *,
      "x" IS NULL
      OR ABS(CAST("x" AS DOUBLE)) <= CAST(1.7976931348623157e+308 AS DOUBLE) AS "wml_finite"
    FROM (
      SELECT
        "id",
        "c" AS "c",
        "x",
        "d" AS "d",
        "k",
        "y" AS "y"
      FROM "t"
    ) AS wml_text_columns
  ) AS wml_checked
), wml_terms AS (
  SELECT
    "s"."id" AS "wml_k_0",
    "s"."wml_finite" AS "wml_k_1",
    -CAST(0.6931471805599452e0 AS DOUBLE) AS "wml_t_0_0",
    -CAST(0.6931471805599452e0 AS DOUBLE) AS "wml_t_0_1",
    CASE
      WHEN "s"."c" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."c"
        WHEN 'a'
        THEN -CAST(0.47000362924573547e0 AS DOUBLE)
        WHEN 'b'
        THEN -CAST(0.9808292530117262e0 AS DOUBLE)
        ELSE -CAST(2.0794415416798357e0 AS DOUBLE)
      END
    END AS "wml_t_1_0",
    CASE
      WHEN "s"."c" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."c"
        WHEN 'a'
        THEN -CAST(0.6931471805599454e0 AS DOUBLE)
        WHEN 'b'
        THEN -CAST(0.6931471805599454e0 AS DOUBLE)
        ELSE -CAST(1.791759469228055e0 AS DOUBLE)
      END
    END AS "wml_t_1_1",
    CASE
      WHEN CASE
        WHEN "s"."x" IS NULL
        THEN NULL
        WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
        THEN 0
        WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
        THEN 1
        WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
        THEN 2
        WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
        THEN 3
        ELSE 4
      END IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE CAST("s"."k" AS VARCHAR)
        WHEN '0'
        THEN CASE CAST(CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
            THEN 3
            ELSE 4
          END AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(0.8472978603872037e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '3'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '4'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          ELSE -CAST(2.3978952727983707e0 AS DOUBLE)
        END
        WHEN '1'
        THEN CASE CAST(CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
            THEN 3
            ELSE 4
          END AS VARCHAR)
          WHEN '0'
          THEN -CAST(0.8472978603872037e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '3'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '4'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          ELSE -CAST(2.3978952727983707e0 AS DOUBLE)
        END
        ELSE CASE CAST(CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
            THEN 3
            ELSE 4
          END AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.2992829841302609e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.2992829841302609e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(2.3978952727983707e0 AS DOUBLE)
          WHEN '3'
          THEN -CAST(2.3978952727983707e0 AS DOUBLE)
          WHEN '4'
          THEN -CAST(1.2992829841302609e0 AS DOUBLE)
          ELSE -CAST(2.3978952727983707e0 AS DOUBLE)
        END
      END
    END AS "wml_t_2_0",
    CASE
      WHEN CASE
        WHEN "s"."x" IS NULL
        THEN NULL
        WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
        THEN 0
        WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
        THEN 1
        WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
        THEN 2
        WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
        THEN 3
        ELSE 4
      END IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE CAST("s"."k" AS VARCHAR)
        WHEN '0'
        THEN CASE CAST(CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
            THEN 3
            ELSE 4
          END AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(0.8472978603872037e0 AS DOUBLE)
          WHEN '3'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '4'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          ELSE -CAST(2.1972245773362196e0 AS DOUBLE)
        END
        WHEN '1'
        THEN CASE CAST(CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
            THEN 3
            ELSE 4
          END AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          WHEN '3'
          THEN -CAST(0.8472978603872037e0 AS DOUBLE)
          WHEN '4'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          ELSE -CAST(2.1972245773362196e0 AS DOUBLE)
        END
        ELSE CASE CAST(CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
            THEN 3
            ELSE 4
          END AS VARCHAR)
          WHEN '0'
          THEN -CAST(2.1972245773362196e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(2.1972245773362196e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.0986122886681098e0 AS DOUBLE)
          WHEN '3'
          THEN -CAST(1.0986122886681098e0 AS DOUBLE)
          WHEN '4'
          THEN -CAST(2.1972245773362196e0 AS DOUBLE)
          ELSE -CAST(2.1972245773362196e0 AS DOUBLE)
        END
      END
    END AS "wml_t_2_1",
    CASE
      WHEN "s"."d" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE CAST(CASE
          WHEN "s"."x" IS NULL
          THEN NULL
          WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
          THEN 0
          WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
          THEN 1
          WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
          THEN 2
          WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
          THEN 3
          ELSE 4
        END AS VARCHAR)
        WHEN '0'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.2876820724517809e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(1.3862943611198906e0 AS DOUBLE)
          ELSE -CAST(2.0794415416798357e0 AS DOUBLE)
        END
        WHEN '1'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.2876820724517809e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(1.3862943611198906e0 AS DOUBLE)
          ELSE -CAST(2.0794415416798357e0 AS DOUBLE)
        END
        WHEN '2'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          ELSE -CAST(2.0794415416798357e0 AS DOUBLE)
        END
        WHEN '4'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(1.3862943611198906e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.2876820724517809e0 AS DOUBLE)
          ELSE -CAST(2.0794415416798357e0 AS DOUBLE)
        END
        ELSE CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.47000362924573547e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.9808292530117262e0 AS DOUBLE)
          ELSE -CAST(2.0794415416798357e0 AS DOUBLE)
        END
      END
    END AS "wml_t_3_0",
    CASE
      WHEN "s"."d" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE CAST(CASE
          WHEN "s"."x" IS NULL
          THEN NULL
          WHEN "s"."x" <= CAST(0.5e0 AS DOUBLE)
          THEN 0
          WHEN "s"."x" <= CAST(1.5e0 AS DOUBLE)
          THEN 1
          WHEN "s"."x" <= CAST(2.0e0 AS DOUBLE)
          THEN 2
          WHEN "s"."x" <= CAST(2.5e0 AS DOUBLE)
          THEN 3
          ELSE 4
        END AS VARCHAR)
        WHEN '0'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          ELSE -CAST(1.791759469228055e0 AS DOUBLE)
        END
        WHEN '1'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          ELSE -CAST(1.791759469228055e0 AS DOUBLE)
        END
        WHEN '2'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.2876820724517809e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(1.3862943611198906e0 AS DOUBLE)
          ELSE -CAST(1.791759469228055e0 AS DOUBLE)
        END
        WHEN '4'
        THEN CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.6931471805599453e0 AS DOUBLE)
          ELSE -CAST(1.791759469228055e0 AS DOUBLE)
        END
        ELSE CASE "s"."d"
          WHEN 'x'
          THEN -CAST(0.6931471805599454e0 AS DOUBLE)
          WHEN 'y'
          THEN -CAST(0.6931471805599454e0 AS DOUBLE)
          ELSE -CAST(1.791759469228055e0 AS DOUBLE)
        END
      END
    END AS "wml_t_3_1",
    CASE
      WHEN "s"."k" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."c"
        WHEN 'a'
        THEN CASE CAST("s"."k" AS VARCHAR)
          WHEN '0'
          THEN -CAST(0.5108256237659907e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          ELSE -CAST(1.9459101490553135e0 AS DOUBLE)
        END
        WHEN 'b'
        THEN CASE CAST("s"."k" AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(0.5108256237659907e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          ELSE -CAST(1.9459101490553135e0 AS DOUBLE)
        END
        ELSE CASE CAST("s"."k" AS VARCHAR)
          WHEN '0'
          THEN -CAST(0.8472978603872037e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(0.8472978603872037e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.9459101490553135e0 AS DOUBLE)
          ELSE -CAST(1.9459101490553135e0 AS DOUBLE)
        END
      END
    END AS "wml_t_4_0",
    CASE
      WHEN "s"."k" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."c"
        WHEN 'a'
        THEN CASE CAST("s"."k" AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(0.5108256237659907e0 AS DOUBLE)
          ELSE -CAST(2.1972245773362196e0 AS DOUBLE)
        END
        WHEN 'b'
        THEN CASE CAST("s"."k" AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(0.5108256237659907e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.6094379124341005e0 AS DOUBLE)
          ELSE -CAST(2.1972245773362196e0 AS DOUBLE)
        END
        ELSE CASE CAST("s"."k" AS VARCHAR)
          WHEN '0'
          THEN -CAST(1.0986122886681098e0 AS DOUBLE)
          WHEN '1'
          THEN -CAST(1.0986122886681098e0 AS DOUBLE)
          WHEN '2'
          THEN -CAST(1.0986122886681098e0 AS DOUBLE)
          ELSE -CAST(2.1972245773362196e0 AS DOUBLE)
        END
      END
    END AS "wml_t_4_1"
  FROM wml_input AS s
), wml_unchecked AS (
  SELECT
    "wml_k_0",
    "wml_k_1",
    (
      (
        "wml_t_0_0" + "wml_t_1_0"
      ) + (
        "wml_t_2_0" + "wml_t_3_0"
      )
    ) + "wml_t_4_0" AS "wml_j_0",
    (
      (
        "wml_t_0_1" + "wml_t_1_1"
      ) + (
        "wml_t_2_1" + "wml_t_3_1"
      )
    ) + "wml_t_4_1" AS "wml_j_1"
  FROM wml_terms
), wml_joint AS (
  SELECT
    "wml_k_0",
    "wml_k_1",
    CASE WHEN "wml_k_1" THEN "wml_j_0" END AS "wml_j_0",
    CASE WHEN "wml_k_1" THEN "wml_j_1" END AS "wml_j_1"
  FROM wml_unchecked
), wml_maxed AS (
  SELECT
    *,
    GREATEST_IGNORE_NULLS("wml_j_0", "wml_j_1") AS "wml_max"
  FROM wml_joint
), wml_shifted AS (
  SELECT
    *,
    CASE
      WHEN "wml_j_0" IS NULL OR "wml_j_0" - "wml_max" < -708
      THEN CAST(0 AS DOUBLE)
      ELSE EXP("wml_j_0" - "wml_max")
    END AS "wml_s_0",
    CASE
      WHEN "wml_j_1" IS NULL OR "wml_j_1" - "wml_max" < -708
      THEN CAST(0 AS DOUBLE)
      ELSE EXP("wml_j_1" - "wml_max")
    END AS "wml_s_1"
  FROM wml_maxed
), wml_totalled AS (
  SELECT
    *,
    "wml_s_0" + "wml_s_1" AS "wml_total"
  FROM wml_shifted
), wml_posterior AS (
  SELECT
    *,
    "wml_s_0" / NULLIF("wml_total", 0) AS "wml_p_0",
    "wml_s_1" / NULLIF("wml_total", 0) AS "wml_p_1"
  FROM wml_totalled
)
SELECT
  "wml_k_0" AS "id",
  "wml_p_0" AS "p_p",
  "wml_p_1" AS "p_q",
  CASE WHEN "wml_j_0" = "wml_max" THEN 'p' WHEN "wml_j_1" = "wml_max" THEN 'q' END AS "prediction"
FROM wml_posterior
