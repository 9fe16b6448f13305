WITH `wml_param_classes` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`class_label` AS STRING) AS `class_label`,
    CAST(`v`.`n` AS INT64) AS `n`,
    CAST(`v`.`log_prior` AS FLOAT64) AS `log_prior`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      0 AS class_index,
      'p' AS class_label,
      3 AS n,
      CAST(-0.6931471805599452 AS FLOAT64) AS log_prior
    ),
    STRUCT(
      0 AS wml_part,
      1 AS class_index,
      'q' AS class_label,
      3 AS n,
      CAST(-0.6931471805599452 AS FLOAT64) AS log_prior
    )
  ]) AS v
), `wml_param_categorical` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`value` AS STRING) AS `value`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n` AS INT64) AS `n`,
    CAST(`v`.`log_prob` AS FLOAT64) AS `log_prob`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'a' AS value,
      0 AS class_index,
      2 AS n,
      CAST(-0.47000362924573547 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'a' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599454 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'b' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.9808292530117262 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      'b' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599454 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS value,
      0 AS class_index,
      2 AS n,
      CAST(-0.47000362924573547 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599454 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'y' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.9808292530117262 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'y' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-0.6931471805599454 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '0' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.8472978603872037 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '0' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681098 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '1' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-0.8472978603872037 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '1' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681098 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '2' AS value,
      0 AS class_index,
      0 AS n,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      '2' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681098 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '0' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-1.2992829841302609 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '0' AS value,
      1 AS class_index,
      0 AS n,
      CAST(-2.1972245773362196 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '1' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-1.2992829841302609 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '1' AS value,
      1 AS class_index,
      0 AS n,
      CAST(-2.1972245773362196 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '2' AS value,
      0 AS class_index,
      0 AS n,
      CAST(-2.3978952727983707 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '2' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681098 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '3' AS value,
      0 AS class_index,
      0 AS n,
      CAST(-2.3978952727983707 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '3' AS value,
      1 AS class_index,
      1 AS n,
      CAST(-1.0986122886681098 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '4' AS value,
      0 AS class_index,
      1 AS n,
      CAST(-1.2992829841302609 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      '4' AS value,
      1 AS class_index,
      0 AS n,
      CAST(-2.1972245773362196 AS FLOAT64) AS log_prob
    )
  ]) AS v
), `wml_param_unseen` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n_class` AS INT64) AS `n_class`,
    CAST(`v`.`n_values` AS INT64) AS `n_values`,
    CAST(`v`.`log_prob` AS FLOAT64) AS `log_prob`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      0 AS class_index,
      3 AS n_class,
      2 AS n_values,
      CAST(-2.0794415416798357 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'c' AS attribute,
      1 AS class_index,
      2 AS n_class,
      2 AS n_values,
      CAST(-1.791759469228055 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      0 AS class_index,
      3 AS n_class,
      2 AS n_values,
      CAST(-2.0794415416798357 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      1 AS class_index,
      2 AS n_class,
      2 AS n_values,
      CAST(-1.791759469228055 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      0 AS class_index,
      2 AS n_class,
      3 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      1 AS class_index,
      3 AS n_class,
      3 AS n_values,
      CAST(-2.1972245773362196 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      0 AS class_index,
      3 AS n_class,
      5 AS n_values,
      CAST(-2.3978952727983707 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      1 AS class_index,
      2 AS n_class,
      5 AS n_values,
      CAST(-2.1972245773362196 AS FLOAT64) AS log_prob
    )
  ]) AS v
), `wml_param_cpt` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`parent` AS STRING) AS `parent`,
    CAST(`v`.`value` AS STRING) AS `value`,
    CAST(`v`.`parent_value` AS STRING) AS `parent_value`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n` AS INT64) AS `n`,
    CAST(`v`.`n_parent` AS INT64) AS `n_parent`,
    CAST(`v`.`n_values` AS INT64) AS `n_values`,
    CAST(`v`.`log_prob` AS FLOAT64) AS `log_prob`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'x' AS value,
      '0' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      2 AS n_values,
      CAST(-0.2876820724517809 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'x' AS value,
      '0' AS parent_value,
      1 AS class_index,
      0 AS n,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'x' AS value,
      '1' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      2 AS n_values,
      CAST(-0.2876820724517809 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'x' AS value,
      '1' AS parent_value,
      1 AS class_index,
      0 AS n,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'x' AS value,
      '2' AS parent_value,
      0 AS class_index,
      0 AS n,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'x' AS value,
      '2' AS parent_value,
      1 AS class_index,
      1 AS n,
      1 AS n_parent,
      2 AS n_values,
      CAST(-0.2876820724517809 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'y' AS value,
      '4' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      2 AS n_values,
      CAST(-0.2876820724517809 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      'y' AS value,
      '4' AS parent_value,
      1 AS class_index,
      0 AS n,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      '0' AS value,
      'a' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      3 AS n_values,
      CAST(-0.5108256237659907 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      '0' AS value,
      'a' AS parent_value,
      1 AS class_index,
      0 AS n,
      1 AS n_parent,
      3 AS n_values,
      CAST(-1.6094379124341005 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      '1' AS value,
      'b' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      3 AS n_values,
      CAST(-0.5108256237659907 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      '1' AS value,
      'b' AS parent_value,
      1 AS class_index,
      1 AS n,
      1 AS n_parent,
      3 AS n_values,
      CAST(-0.5108256237659907 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      '2' AS value,
      'a' AS parent_value,
      0 AS class_index,
      0 AS n,
      1 AS n_parent,
      3 AS n_values,
      CAST(-1.6094379124341005 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      '2' AS value,
      'a' AS parent_value,
      1 AS class_index,
      1 AS n,
      1 AS n_parent,
      3 AS n_values,
      CAST(-0.5108256237659907 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '0' AS value,
      '1' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-0.8472978603872037 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '0' AS value,
      '1' AS parent_value,
      1 AS class_index,
      0 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '1' AS value,
      '0' AS parent_value,
      0 AS class_index,
      1 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-0.8472978603872037 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '1' AS value,
      '0' AS parent_value,
      1 AS class_index,
      0 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '2' AS value,
      '0' AS parent_value,
      0 AS class_index,
      0 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '2' AS value,
      '0' AS parent_value,
      1 AS class_index,
      1 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-0.8472978603872037 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '3' AS value,
      '1' AS parent_value,
      0 AS class_index,
      0 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '3' AS value,
      '1' AS parent_value,
      1 AS class_index,
      1 AS n,
      1 AS n_parent,
      5 AS n_values,
      CAST(-0.8472978603872037 AS FLOAT64) AS log_prob
    )
  ]) AS v
), `wml_param_cpt_parent` AS (
  SELECT
    CAST(`v`.`wml_part` AS INT64) AS `wml_part`,
    CAST(`v`.`attribute` AS STRING) AS `attribute`,
    CAST(`v`.`parent` AS STRING) AS `parent`,
    CAST(`v`.`parent_value` AS STRING) AS `parent_value`,
    CAST(`v`.`class_index` AS INT64) AS `class_index`,
    CAST(`v`.`n_parent` AS INT64) AS `n_parent`,
    CAST(`v`.`n_values` AS INT64) AS `n_values`,
    CAST(`v`.`log_prob` AS FLOAT64) AS `log_prob`
  FROM UNNEST([
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '0' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      2 AS n_values,
      CAST(-1.3862943611198906 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '0' AS parent_value,
      1 AS class_index,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '1' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      2 AS n_values,
      CAST(-1.3862943611198906 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '1' AS parent_value,
      1 AS class_index,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '2' AS parent_value,
      0 AS class_index,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '2' AS parent_value,
      1 AS class_index,
      1 AS n_parent,
      2 AS n_values,
      CAST(-1.3862943611198906 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '4' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      2 AS n_values,
      CAST(-1.3862943611198906 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'd' AS attribute,
      'x' AS parent,
      '4' AS parent_value,
      1 AS class_index,
      0 AS n_parent,
      2 AS n_values,
      CAST(-0.6931471805599453 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      'a' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      3 AS n_values,
      CAST(-1.6094379124341005 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      'a' AS parent_value,
      1 AS class_index,
      1 AS n_parent,
      3 AS n_values,
      CAST(-1.6094379124341005 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      'b' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      3 AS n_values,
      CAST(-1.6094379124341005 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'k' AS attribute,
      'c' AS parent,
      'b' AS parent_value,
      1 AS class_index,
      1 AS n_parent,
      3 AS n_values,
      CAST(-1.6094379124341005 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '0' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '0' AS parent_value,
      1 AS class_index,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '1' AS parent_value,
      0 AS class_index,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    ),
    STRUCT(
      0 AS wml_part,
      'x' AS attribute,
      'k' AS parent,
      '1' AS parent_value,
      1 AS class_index,
      1 AS n_parent,
      5 AS n_values,
      CAST(-1.9459101490553135 AS FLOAT64) AS log_prob
    )
  ]) AS v
), wml_input AS (
  SELECT
    *
  FROM `t`
), wml_joint AS (
  SELECT
    `s`.`id` AS `wml_k_0`,
    (
      (
        `wml_prior`.`lp_0` + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN `wml_a0`.`value` IS NULL
          THEN `wml_a0_unseen`.`lp_0`
          ELSE `wml_a0`.`lp_0`
        END
      ) + (
        CASE
          WHEN CASE
            WHEN `s`.`x` IS NULL
            THEN NULL
            WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
            THEN 0
            WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
            THEN 1
            WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
            THEN 2
            WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN NOT `wml_t1`.`value` IS NULL
          THEN `wml_t1`.`lp_0`
          WHEN NOT `wml_a1`.`value` IS NULL AND NOT `wml_q1`.`parent_value` IS NULL
          THEN `wml_q1`.`lp_0`
          ELSE CASE
            WHEN CASE
              WHEN `s`.`x` IS NULL
              THEN NULL
              WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
              THEN 0
              WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
              THEN 1
              WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
              THEN 2
              WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
              THEN 3
              ELSE 4
            END IS NULL
            THEN CAST(0 AS FLOAT64)
            WHEN `wml_a1`.`value` IS NULL
            THEN `wml_a1_unseen`.`lp_0`
            ELSE `wml_a1`.`lp_0`
          END
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN NOT `wml_t2`.`value` IS NULL
          THEN `wml_t2`.`lp_0`
          WHEN NOT `wml_a2`.`value` IS NULL AND NOT `wml_q2`.`parent_value` IS NULL
          THEN `wml_q2`.`lp_0`
          ELSE CASE
            WHEN `s`.`d` IS NULL
            THEN CAST(0 AS FLOAT64)
            WHEN `wml_a2`.`value` IS NULL
            THEN `wml_a2_unseen`.`lp_0`
            ELSE `wml_a2`.`lp_0`
          END
        END
      )
    ) + CASE
      WHEN `s`.`k` IS NULL
      THEN CAST(0 AS FLOAT64)
      WHEN NOT `wml_t3`.`value` IS NULL
      THEN `wml_t3`.`lp_0`
      WHEN NOT `wml_a3`.`value` IS NULL AND NOT `wml_q3`.`parent_value` IS NULL
      THEN `wml_q3`.`lp_0`
      ELSE CASE
        WHEN `s`.`k` IS NULL
        THEN CAST(0 AS FLOAT64)
        WHEN `wml_a3`.`value` IS NULL
        THEN `wml_a3_unseen`.`lp_0`
        ELSE `wml_a3`.`lp_0`
      END
    END AS `wml_j_0`,
    (
      (
        `wml_prior`.`lp_1` + CASE
          WHEN `s`.`c` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN `wml_a0`.`value` IS NULL
          THEN `wml_a0_unseen`.`lp_1`
          ELSE `wml_a0`.`lp_1`
        END
      ) + (
        CASE
          WHEN CASE
            WHEN `s`.`x` IS NULL
            THEN NULL
            WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
            THEN 0
            WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
            THEN 1
            WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
            THEN 2
            WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN NOT `wml_t1`.`value` IS NULL
          THEN `wml_t1`.`lp_1`
          WHEN NOT `wml_a1`.`value` IS NULL AND NOT `wml_q1`.`parent_value` IS NULL
          THEN `wml_q1`.`lp_1`
          ELSE CASE
            WHEN CASE
              WHEN `s`.`x` IS NULL
              THEN NULL
              WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
              THEN 0
              WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
              THEN 1
              WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
              THEN 2
              WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
              THEN 3
              ELSE 4
            END IS NULL
            THEN CAST(0 AS FLOAT64)
            WHEN `wml_a1`.`value` IS NULL
            THEN `wml_a1_unseen`.`lp_1`
            ELSE `wml_a1`.`lp_1`
          END
        END + CASE
          WHEN `s`.`d` IS NULL
          THEN CAST(0 AS FLOAT64)
          WHEN NOT `wml_t2`.`value` IS NULL
          THEN `wml_t2`.`lp_1`
          WHEN NOT `wml_a2`.`value` IS NULL AND NOT `wml_q2`.`parent_value` IS NULL
          THEN `wml_q2`.`lp_1`
          ELSE CASE
            WHEN `s`.`d` IS NULL
            THEN CAST(0 AS FLOAT64)
            WHEN `wml_a2`.`value` IS NULL
            THEN `wml_a2_unseen`.`lp_1`
            ELSE `wml_a2`.`lp_1`
          END
        END
      )
    ) + CASE
      WHEN `s`.`k` IS NULL
      THEN CAST(0 AS FLOAT64)
      WHEN NOT `wml_t3`.`value` IS NULL
      THEN `wml_t3`.`lp_1`
      WHEN NOT `wml_a3`.`value` IS NULL AND NOT `wml_q3`.`parent_value` IS NULL
      THEN `wml_q3`.`lp_1`
      ELSE CASE
        WHEN `s`.`k` IS NULL
        THEN CAST(0 AS FLOAT64)
        WHEN `wml_a3`.`value` IS NULL
        THEN `wml_a3_unseen`.`lp_1`
        ELSE `wml_a3`.`lp_1`
      END
    END AS `wml_j_1`
  FROM wml_input AS s
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prior` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prior` END) AS `lp_1`
    FROM `wml_param_classes` AS p
    WHERE
      TRUE
    GROUP BY
      p.wml_part
  ) AS wml_prior
    ON `wml_prior`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_categorical` AS p
    WHERE
      p.attribute = 'c'
    GROUP BY
      p.wml_part,
      `p`.`value`
  ) AS wml_a0
    ON `wml_a0`.`value` = CAST(`s`.`c` AS STRING) AND `wml_a0`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_unseen` AS p
    WHERE
      `p`.`attribute` = 'c'
    GROUP BY
      p.wml_part
  ) AS wml_a0_unseen
    ON `wml_a0_unseen`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_categorical` AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.wml_part,
      `p`.`value`
  ) AS wml_a1
    ON `wml_a1`.`value` = CAST(CASE
      WHEN `s`.`x` IS NULL
      THEN NULL
      WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
      THEN 0
      WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
      THEN 1
      WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
      THEN 2
      WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
      THEN 3
      ELSE 4
    END AS STRING)
    AND `wml_a1`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_unseen` AS p
    WHERE
      `p`.`attribute` = 'x'
    GROUP BY
      p.wml_part
  ) AS wml_a1_unseen
    ON `wml_a1_unseen`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      `p`.`parent_value` AS `parent_value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_cpt` AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.wml_part,
      `p`.`value`,
      `p`.`parent_value`
  ) AS wml_t1
    ON (
      `wml_t1`.`value` = CAST(CASE
        WHEN `s`.`x` IS NULL
        THEN NULL
        WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
        THEN 0
        WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
        THEN 1
        WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
        THEN 2
        WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
        THEN 3
        ELSE 4
      END AS STRING)
      AND `wml_t1`.`parent_value` = CAST(`s`.`k` AS STRING)
    )
    AND `wml_t1`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`parent_value` AS `parent_value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_cpt_parent` AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.wml_part,
      `p`.`parent_value`
  ) AS wml_q1
    ON `wml_q1`.`parent_value` = CAST(`s`.`k` AS STRING) AND `wml_q1`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_categorical` AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      `p`.`value`
  ) AS wml_a2
    ON `wml_a2`.`value` = CAST(`s`.`d` AS STRING) AND `wml_a2`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_unseen` AS p
    WHERE
      `p`.`attribute` = 'd'
    GROUP BY
      p.wml_part
  ) AS wml_a2_unseen
    ON `wml_a2_unseen`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      `p`.`parent_value` AS `parent_value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_cpt` AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      `p`.`value`,
      `p`.`parent_value`
  ) AS wml_t2
    ON (
      `wml_t2`.`value` = CAST(`s`.`d` AS STRING)
      AND `wml_t2`.`parent_value` = CAST(CASE
        WHEN `s`.`x` IS NULL
        THEN NULL
        WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
        THEN 0
        WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
        THEN 1
        WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
        THEN 2
        WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
        THEN 3
        ELSE 4
      END AS STRING)
    )
    AND `wml_t2`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`parent_value` AS `parent_value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_cpt_parent` AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      `p`.`parent_value`
  ) AS wml_q2
    ON `wml_q2`.`parent_value` = CAST(CASE
      WHEN `s`.`x` IS NULL
      THEN NULL
      WHEN `s`.`x` <= CAST(0.5 AS FLOAT64)
      THEN 0
      WHEN `s`.`x` <= CAST(1.5 AS FLOAT64)
      THEN 1
      WHEN `s`.`x` <= CAST(2.0 AS FLOAT64)
      THEN 2
      WHEN `s`.`x` <= CAST(2.5 AS FLOAT64)
      THEN 3
      ELSE 4
    END AS STRING)
    AND `wml_q2`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_categorical` AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.wml_part,
      `p`.`value`
  ) AS wml_a3
    ON `wml_a3`.`value` = CAST(`s`.`k` AS STRING) AND `wml_a3`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_unseen` AS p
    WHERE
      `p`.`attribute` = 'k'
    GROUP BY
      p.wml_part
  ) AS wml_a3_unseen
    ON `wml_a3_unseen`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`value` AS `value`,
      `p`.`parent_value` AS `parent_value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_cpt` AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.wml_part,
      `p`.`value`,
      `p`.`parent_value`
  ) AS wml_t3
    ON (
      `wml_t3`.`value` = CAST(`s`.`k` AS STRING)
      AND `wml_t3`.`parent_value` = CAST(`s`.`c` AS STRING)
    )
    AND `wml_t3`.`wml_part` = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      `p`.`parent_value` AS `parent_value`,
      MAX(CASE WHEN p.class_index = 0 THEN `p`.`log_prob` END) AS `lp_0`,
      MAX(CASE WHEN p.class_index = 1 THEN `p`.`log_prob` END) AS `lp_1`
    FROM `wml_param_cpt_parent` AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.wml_part,
      `p`.`parent_value`
  ) AS wml_q3
    ON `wml_q3`.`parent_value` = CAST(`s`.`c` AS STRING) AND `wml_q3`.`wml_part` = 0
), wml_maxed AS (
  SELECT
    *,
    GREATEST(`wml_j_0`, `wml_j_1`) AS `wml_max`
  FROM wml_joint
), wml_shifted AS (
  SELECT
    *,
    CASE
      WHEN `wml_j_0` IS NULL OR `wml_j_0` - `wml_max` < -708
      THEN CAST(0 AS FLOAT64)
      ELSE EXP(`wml_j_0` - `wml_max`)
    END AS `wml_s_0`,
    CASE
      WHEN `wml_j_1` IS NULL OR `wml_j_1` - `wml_max` < -708
      THEN CAST(0 AS FLOAT64)
      ELSE EXP(`wml_j_1` - `wml_max`)
    END AS `wml_s_1`
  FROM wml_maxed
), wml_totalled AS (
  SELECT
    *,
    `wml_s_0` + `wml_s_1` AS `wml_total`
  FROM wml_shifted
), wml_posterior AS (
  SELECT
    *,
    `wml_s_0` / NULLIF(`wml_total`, 0) AS `wml_p_0`,
    `wml_j_0` - `wml_max` - LN(NULLIF(`wml_total`, 0)) AS `wml_lp_0`,
    `wml_s_1` / NULLIF(`wml_total`, 0) AS `wml_p_1`,
    `wml_j_1` - `wml_max` - LN(NULLIF(`wml_total`, 0)) AS `wml_lp_1`
  FROM wml_totalled
)
SELECT
  `wml_k_0` AS `id`,
  `wml_p_0` AS `p_p`,
  `wml_p_1` AS `p_q`,
  CASE WHEN `wml_j_0` = `wml_max` THEN 'p' WHEN `wml_j_1` = `wml_max` THEN 'q' END AS `prediction`
FROM wml_posterior
